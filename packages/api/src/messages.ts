/**
 * Status and condition messages OLM v0 writes, verbatim, so that every controller words them alike.
 * Fixed texts are strings; texts with a variable part are functions.
 */

/** ClusterServiceVersion `status.message` values (with the reason they go with in comments). */
export const CSVMessages = {
  /** Pending / RequirementsUnknown */
  requirementsNotYetChecked: 'requirements not yet checked',
  /** Pending / OperatorConditionNotUpgradeable */
  notUpgradeable: (detail: string) => `operator is not upgradeable: ${detail}`,
  /** Failed / InvalidInstallStrategy */
  installStrategyInvalid: (detail: string) => `install strategy invalid: ${detail}`,
  /** Pending / RequirementsNotMet */
  requirementsNotFound: "one or more requirements couldn't be found",
  /** InstallReady / AllRequirementsMet */
  allRequirementsFound: 'all requirements found, attempting install',
  /** Failed / InstallComponentFailed(NoRetry) */
  installStrategyFailed: (detail: string) => `install strategy failed: ${detail}`,
  /** Installing / InstallSucceeded */
  waitingForInstallComponents: 'waiting for install components to report healthy',
  /** Pending / NeedsReinstall */
  calculatedDeploymentBad: 'calculated deployment install is bad',
  /** Failed / InstallCheckFailed */
  installTimeout: 'install timeout',
  /** Replacing / BeingReplaced */
  beingReplaced: (replacer: string) => `being replaced by csv: ${replacer}`,
  /** Replacing / BeingReplaced, from Failed with fail-forward */
  failForwardBeingReplaced: (phase: string, replacer: string) => `Fail Forward is enabled, allowing ${phase} csv to be replaced by csv: ${replacer}`,
  /** Failed / RequirementsNotMet (from Succeeded) */
  requirementsNoLongerMet: 'requirements no longer met',
  /** Pending / RequirementsNotMet (from Failed) */
  requirementsNotMet: 'requirements not met',
  /** Pending / RequirementsUnknown, recovering from an OperatorGroup problem */
  installModesNowSupported: 'InstallModes now support target namespaces',
  noLongerIntersecting: 'OperatorGroup no longer intersecting with conflicting owner',
  staticGroupsNowSupportAPIs: 'static OperatorGroup and intersecting groups now support providedAPIs',
  /** Pending / NeedsCertRotation (from Failed) */
  needsCertRefresh: 'owned APIServices need cert refresh',
  /** Deleting / Replaced */
  replaced: 'has been replaced by a newer ClusterServiceVersion that has successfully installed.',
  /** Succeeded / InstallSucceeded */
  installComplete: 'install strategy completed with no errors',
  /** Failed / InstallCheckFailed from updateInstallStatus */
  installFailed: (detail: string) => `install failed: ${detail}`,
  apiServicesNotInstalled: 'apiServices not installed',
  webhookInstallFailed: (detail: string) => `Webhook install failed: ${detail}`,
  webhooksNotInstalled: 'webhooks not installed',
  installing: (detail: string) => `installing: ${detail}`,
  /** Pending / DetectedClusterChange */
  clusterResourcesChanged: 'Cluster resources changed state',
  /** Failed / NoOperatorGroup */
  noOperatorGroup: 'csv in namespace with no operatorgroups',
  /** Failed / TooManyOperatorGroups */
  tooManyOperatorGroups: "csv created in namespace with multiple operatorgroups, can't pick one automatically",
  /** Failed / NoTargetNamespaces */
  noTargetNamespacesMatched: 'no targetNamespaces are matched operatorgroups namespace selection',
  missingTargetNamespacesAnnotation: 'csv missing olm.targetNamespaces annotation',
  /** Failed / CannotModifyStaticOperatorGroupProvidedAPIs */
  staticProvidedAPIsCannotChange: 'static provided api operatorgroup cannot be modified by these apis',
  /** Failed / InterOperatorGroupOwnerConflict */
  intersectingGroupsProvideSameAPIs: 'intersecting operatorgroups provide the same apis',
  /** Reason Copied, on copies of a CSV */
  copied: (operatorNamespace: string) => `The operator is running in ${operatorNamespace} but is managing this namespace`,
  /** Sync error of a Replacing CSV whose replacer is gone. */
  noReplacementFound: 'marked as replacement, but no replacement CSV found in cluster',
} as const;

/** `status.requirementStatus[].message` values. */
export const RequirementMessages = {
  minKubeVersionNotMet: (minKubeVersion: string, serverVersion: string) =>
    `CSV version requirement not met: minKubeVersion (${minKubeVersion}) > server version (${serverVersion})`,
  crdNotPresent: 'CRD is not present',
  crdInstalledAlongside: (csvs: string) => `CRD installed alongside other CSV(s): ${csvs}`,
  crdVersionNotServed: 'CRD version not served',
  crdPresent: 'CRD is present and Established condition is true',
  serviceAccountMissing: 'Service account does not exist',
  policyRuleNotSatisfied: 'Policy rule not satisfied for service account',
  /** Dependents of a service-account requirement: `namespaced rule:<json>` or `cluster rule:<json>`. */
  rule: (scope: 'namespaced' | 'cluster', ruleJson: string) => `${scope} rule:${ruleJson}`,
} as const;

/** Why an OperatorGroup's target namespaces do not fit a CSV's install modes (`UnsupportedOperatorGroup`). */
export const InstallModeMessages = {
  zeroNamespaces: 'operatorgroup has invalid selected namespaces, cannot configure to watch zero namespaces',
  namespaceAllAmongMany: 'operatorgroup has invalid selected namespaces, NamespaceAll found when |selected namespaces| > 1',
  ownNamespaceNotSupported: 'OwnNamespace InstallModeType not supported, cannot configure to watch own namespace',
  allNamespacesNotSupported: 'AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces',
  singleNamespaceNotSupported: 'SingleNamespace InstallModeType not supported, cannot configure to watch one namespace',
  multiNamespaceNotSupported: (count: number) => `MultiNamespace InstallModeType not supported, cannot configure to watch ${count} namespaces`,
} as const;

/** Subscription condition messages. */
export const SubscriptionMessages = {
  allCatalogSourcesHealthy: 'all available catalogsources are healthy',
  /** `state` is `unhealthy` or `missing`. */
  catalogSourceUnhealthy: (namespace: string, name: string, state: 'unhealthy' | 'missing') => `targeted catalogsource ${namespace}/${name} ${state}`,
  noCatalogSources: 'dependency resolution requires at least one catalogsource',
} as const;

/** InstallPlan messages. */
export const InstallPlanMessages = {
  retrying: (detail: string) => `retrying execution due to error: ${detail}`,
  invalidData: 'the InstallPlan contains invalid data',
  preExistingCrdOwners: (csv: string) => `pre-existing CRD owners found for owned CRD(s) of dependent CSV ${csv}`,
  storedVersionRemoved: (crd: string, version: string) =>
    `risk of data loss updating ${JSON.stringify(crd)}: new CRD removes version ${version} that is listed as a stored version on the existing CRD`,
} as const;

/** CatalogSource messages. */
export const CatalogSourceMessages = {
  invalidInterval: (error: string) =>
    `error parsing spec.updateStrategy.registryPoll.interval. Using the default value of 15m0s instead. Error: ${error}`,
} as const;
