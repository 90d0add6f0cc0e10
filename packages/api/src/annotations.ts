/** Annotation keys OLM reads or writes, verbatim from upstream. */
export const Annotations = {
  /** On CSVs: the OperatorGroup's name. */
  operatorGroup: 'olm.operatorGroup',
  /** On CSVs: the OperatorGroup's namespace (a CSV is a copy when it differs from its own namespace). */
  operatorNamespace: 'olm.operatorNamespace',
  /** On CSVs: sorted target namespaces joined by ","; empty for AllNamespaces. */
  targetNamespaces: 'olm.targetNamespaces',
  /** On OperatorGroups: comma-joined sorted `Kind.version.group` list. */
  providedAPIs: 'olm.providedAPIs',
  /** On OperatorGroups: `"true"` removes the global catalog namespace from resolution. */
  excludeGlobalNamespaceResolution: 'olm.operatorframework.io/exclude-global-namespace-resolution',
  /** On CSVs: a semver range of versions this one replaces. */
  skipRange: 'olm.skipRange',
  /** On CSVs: `{"properties":[…]}` of the bundle. */
  properties: 'operatorframework.io/properties',
  /** On InstallPlans: the Subscription that generated it. */
  generatedBy: 'olm.generated-by',
  /** On CSVs: example custom resources (JSON array). */
  almExamples: 'alm-examples',
  /** On CSVs: the suggested install namespace. */
  suggestedNamespace: 'operatorframework.io/suggested-namespace',
} as const;

/**
 * This project's own annotations (upstream OLM has none of these), under its prefix `olm-ts.io/`, so
 * that they can never clash with upstream's.
 */
export const ProjectAnnotations = {
  /**
   * On Subscriptions: a version or a blang range (`1.1.x`, `>=1.1.0 <1.3.0`). OLM installs and upgrades
   * only to versions inside it; the `VersionPinned` condition says when a newer version waits.
   */
  versionPin: 'olm-ts.io/version-pin',
  /**
   * On Subscriptions, written by the catalog operator: the revisions installed, oldest first, as a JSON
   * array of `InstallHistoryEntry` (the last `maxInstallHistoryEntries`). `olm history` reads it and
   * `olm rollback` carries it over; InstallPlans are garbage-collected, so they cannot be the record.
   */
  installHistory: 'olm-ts.io/install-history',
} as const;

/** Label keys OLM reads or writes, verbatim from upstream. */
export const Labels = {
  /** `"true"` on everything OLM creates. */
  managed: 'olm.managed',
  owner: 'olm.owner',
  ownerNamespace: 'olm.owner.namespace',
  ownerKind: 'olm.owner.kind',
  /** On copied CSVs and copied Roles/RoleBindings: the source namespace. */
  copiedFrom: 'olm.copiedFrom',
  /** On deployments: base62(sha224(JSON(spec))). */
  deploymentSpecHash: 'olm.deployment-spec-hash',
  /** On generated RBAC: hash of its content. */
  permissionsHash: 'olm.permissions.hash',
  /** Prefix of `olm.api.<fnv64a-hex("Kind.version.group")>: provided|required` on CSVs. */
  apiPrefix: 'olm.api.',
  /** Prefix of `olm.operatorgroup.uid/<og uid>: ""` on namespaces targeted by an OperatorGroup. */
  operatorGroupUidPrefix: 'olm.operatorgroup.uid/',
  /** Prefix of the aggregation labels of OperatorGroup ClusterRoles. */
  operatorGroupAggregatePrefix: 'olm.opgroup.permissions/aggregate-to-',
} as const;

/** Values of the `olm.api.<hash>` CSV labels. */
export const APILabelValues = {
  provided: 'provided',
  required: 'required',
} as const;

/** The `olm.targetNamespaces` annotation value: sorted, comma joined; `""` for all namespaces. */
export function formatTargetNamespaces(namespaces: readonly string[]): string {
  return [...namespaces].sort().join(',');
}

/** The namespaces an `olm.targetNamespaces` annotation names (`[""]` for all namespaces, none when it is absent), as upstream splits it. */
export function parseTargetNamespaces(annotation: string | undefined): string[] {
  return annotation === undefined ? [] : annotation.split(',');
}
