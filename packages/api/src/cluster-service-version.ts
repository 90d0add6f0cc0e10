import type {
  GroupVersionKind,
  KubernetesObject,
  LabelSelector,
  Opaque,
  PolicyRule,
  Time,
} from './meta.js';

export const ClusterServiceVersionKind = 'ClusterServiceVersion';

/** CSV phases (`status.phase`). `None` and `Any` are both `""`; `Any` only matches all phases in queries. */
export const CSVPhases = {
  None: '',
  Pending: 'Pending',
  InstallReady: 'InstallReady',
  Installing: 'Installing',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Unknown: 'Unknown',
  Replacing: 'Replacing',
  Deleting: 'Deleting',
  Any: '',
} as const;
export type ClusterServiceVersionPhase = (typeof CSVPhases)[keyof typeof CSVPhases];

/** CSV condition reasons (`status.reason`), upstream `ConditionReason` values. */
export const CSVReasons = {
  RequirementsUnknown: 'RequirementsUnknown',
  RequirementsNotMet: 'RequirementsNotMet',
  RequirementsMet: 'AllRequirementsMet',
  OwnerConflict: 'OwnerConflict',
  ComponentFailed: 'InstallComponentFailed',
  ComponentFailedNoRetry: 'InstallComponentFailedNoRetry',
  InvalidStrategy: 'InvalidInstallStrategy',
  Waiting: 'InstallWaiting',
  InstallSuccessful: 'InstallSucceeded',
  InstallCheckFailed: 'InstallCheckFailed',
  ComponentUnhealthy: 'ComponentUnhealthy',
  BeingReplaced: 'BeingReplaced',
  Replaced: 'Replaced',
  NeedsReinstall: 'NeedsReinstall',
  NeedsCertRotation: 'NeedsCertRotation',
  APIServiceResourceIssue: 'APIServiceResourceIssue',
  APIServiceResourcesNeedReinstall: 'APIServiceResourcesNeedReinstall',
  APIServiceInstallFailed: 'APIServiceInstallFailed',
  Copied: 'Copied',
  InvalidInstallModes: 'InvalidInstallModes',
  NoTargetNamespaces: 'NoTargetNamespaces',
  UnsupportedOperatorGroup: 'UnsupportedOperatorGroup',
  NoOperatorGroup: 'NoOperatorGroup',
  TooManyOperatorGroups: 'TooManyOperatorGroups',
  InterOperatorGroupOwnerConflict: 'InterOperatorGroupOwnerConflict',
  CannotModifyStaticOperatorGroupProvidedAPIs: 'CannotModifyStaticOperatorGroupProvidedAPIs',
  DetectedClusterChange: 'DetectedClusterChange',
  InvalidWebhookDescription: 'InvalidWebhookDescription',
  OperatorConditionNotUpgradeable: 'OperatorConditionNotUpgradeable',
  WaitingForCleanupToComplete: 'WaitingOnCleanup',
} as const;
export type CSVReason = (typeof CSVReasons)[keyof typeof CSVReasons];

/** Reasons that make a CSV obsolete (`IsObsolete`). */
export const CSVObsoleteReasons: readonly CSVReason[] = [CSVReasons.Replaced, CSVReasons.BeingReplaced];

/** Reasons that keep a CSV from being copied to target namespaces (`IsUncopiable`, together with phase None). */
export const CSVUncopiableReasons: readonly CSVReason[] = [
  CSVReasons.Copied,
  CSVReasons.InvalidInstallModes,
  CSVReasons.NoTargetNamespaces,
  CSVReasons.UnsupportedOperatorGroup,
  CSVReasons.NoOperatorGroup,
  CSVReasons.TooManyOperatorGroups,
  CSVReasons.InterOperatorGroupOwnerConflict,
  CSVReasons.CannotModifyStaticOperatorGroupProvidedAPIs,
];

/** `status.requirementStatus[].status` and `dependents[].status` values. */
export const RequirementStatusReasons = {
  Present: 'Present',
  NotPresent: 'NotPresent',
  PresentNotSatisfied: 'PresentNotSatisfied',
  NotAvailable: 'PresentNotAvailable',
} as const;
export const DependentStatusReasons = {
  Satisfied: 'Satisfied',
  NotSatisfied: 'NotSatisfied',
} as const;
/** Ad-hoc requirement statuses used for owned APIServices. */
export const APIServiceRequirementStatuses = {
  DeploymentFound: 'DeploymentFound',
  DeploymentNotFound: 'DeploymentNotFound',
} as const;
export type StatusReason =
  | (typeof RequirementStatusReasons)[keyof typeof RequirementStatusReasons]
  | (typeof DependentStatusReasons)[keyof typeof DependentStatusReasons]
  | (typeof APIServiceRequirementStatuses)[keyof typeof APIServiceRequirementStatuses];

/** `spec.installModes[].type`. */
export const InstallModeTypes = {
  OwnNamespace: 'OwnNamespace',
  SingleNamespace: 'SingleNamespace',
  MultiNamespace: 'MultiNamespace',
  AllNamespaces: 'AllNamespaces',
} as const;
export type InstallModeType = (typeof InstallModeTypes)[keyof typeof InstallModeTypes];

/** The only install strategy upstream OLM knows (`spec.install.strategy`). */
export const InstallStrategyNameDeployment = 'deployment';

/** Reasons of install-strategy errors (`pkg/controller/install`). `InsufficentPermissions` is spelled as upstream. */
export const StrategyErrorReasons = {
  ComponentMissing: 'ComponentMissing',
  AnnotationsMissing: 'AnnotationsMissing',
  Waiting: 'Waiting',
  InvalidStrategy: 'InvalidStrategy',
  Timeout: 'Timeout',
  Unknown: 'Unknown',
  PatchUnsuccessful: 'PatchUnsuccessful',
  DeploymentUpdated: 'DeploymentUpdated',
  InsufficientPermissions: 'InsufficentPermissions',
} as const;

/** `spec.webhookdefinitions[].type`. */
export const WebhookAdmissionTypes = {
  ValidatingAdmissionWebhook: 'ValidatingAdmissionWebhook',
  MutatingAdmissionWebhook: 'MutatingAdmissionWebhook',
  ConversionWebhook: 'ConversionWebhook',
} as const;
export type WebhookAdmissionType = (typeof WebhookAdmissionTypes)[keyof typeof WebhookAdmissionTypes];

/** Finalizer OLM puts on CSVs. */
export const CSVCleanupFinalizer = 'operators.coreos.com/csv-cleanup';

export interface InstallMode {
  type: InstallModeType | (string & {});
  supported: boolean;
}

export interface StrategyDeploymentPermissions {
  serviceAccountName: string;
  rules: PolicyRule[];
}

export interface StrategyDeploymentSpec {
  name: string;
  /** An `apps/v1` DeploymentSpec. */
  spec: Opaque;
  label?: Record<string, string>;
}

export interface StrategyDetailsDeployment {
  deployments: StrategyDeploymentSpec[];
  permissions?: StrategyDeploymentPermissions[];
  clusterPermissions?: StrategyDeploymentPermissions[];
}

export interface NamedInstallStrategy {
  strategy: typeof InstallStrategyNameDeployment | (string & {});
  spec?: StrategyDetailsDeployment;
}

export interface Descriptor {
  path: string;
  displayName?: string;
  description?: string;
  'x-descriptors'?: string[];
  value?: unknown;
}
export type SpecDescriptor = Descriptor;
export type StatusDescriptor = Descriptor;
export type ActionDescriptor = Descriptor;

export interface APIResourceReference {
  name: string;
  kind: string;
  version: string;
}

export interface CRDDescription {
  /** `<plural>.<group>`. */
  name: string;
  version: string;
  kind: string;
  displayName?: string;
  description?: string;
  resources?: APIResourceReference[];
  statusDescriptors?: StatusDescriptor[];
  specDescriptors?: SpecDescriptor[];
  actionDescriptors?: ActionDescriptor[];
}

export interface APIServiceDescription {
  name: string;
  group: string;
  version: string;
  kind: string;
  deploymentName?: string;
  containerPort?: number;
  displayName?: string;
  description?: string;
  resources?: APIResourceReference[];
  statusDescriptors?: StatusDescriptor[];
  specDescriptors?: SpecDescriptor[];
  actionDescriptors?: ActionDescriptor[];
}

export interface CustomResourceDefinitions {
  owned?: CRDDescription[];
  required?: CRDDescription[];
}

export interface APIServiceDefinitions {
  owned?: APIServiceDescription[];
  required?: APIServiceDescription[];
}

export interface WebhookDescription {
  generateName: string;
  type: WebhookAdmissionType;
  deploymentName?: string;
  /** 1–65535, default 443. */
  containerPort?: number;
  targetPort?: number | string;
  /** `admissionregistration/v1` RuleWithOperations. */
  rules?: Opaque[];
  failurePolicy?: 'Ignore' | 'Fail' | (string & {});
  matchPolicy?: 'Exact' | 'Equivalent' | (string & {});
  objectSelector?: LabelSelector;
  sideEffects: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown' | (string & {}) | null;
  timeoutSeconds?: number;
  admissionReviewVersions: string[];
  reinvocationPolicy?: 'Never' | 'IfNeeded' | (string & {});
  webhookPath?: string;
  conversionCRDs?: string[];
}

export interface Maintainer {
  name?: string;
  email?: string;
}

export interface AppLink {
  name?: string;
  url?: string;
}

export interface Icon {
  base64data: string;
  mediatype: string;
}

export interface RelatedImage {
  name: string;
  image: string;
}

export interface CleanupSpec {
  enabled: boolean;
}

export interface ClusterServiceVersionSpec {
  install: NamedInstallStrategy;
  /** Semantic version of the operator. */
  version?: string;
  /** Packaging version of `version` (dot-separated pre-release identifiers, ≤ 20 characters), e.g. `2` or `hotfix.1`. */
  release?: string;
  maturity?: string;
  customresourcedefinitions?: CustomResourceDefinitions;
  apiservicedefinitions?: APIServiceDefinitions;
  webhookdefinitions?: WebhookDescription[];
  nativeAPIs?: GroupVersionKind[];
  minKubeVersion?: string;
  displayName: string;
  description?: string;
  keywords?: string[];
  maintainers?: Maintainer[];
  provider?: AppLink;
  links?: AppLink[];
  icon?: Icon[];
  installModes?: InstallMode[];
  replaces?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  selector?: LabelSelector;
  cleanup?: CleanupSpec;
  skips?: string[];
  relatedImages?: RelatedImage[];
}

export interface ClusterServiceVersionCondition {
  phase?: ClusterServiceVersionPhase;
  message?: string;
  reason?: CSVReason | (string & {});
  lastUpdateTime?: Time;
  lastTransitionTime?: Time;
}

export interface DependentStatus {
  group: string;
  version: string;
  kind: string;
  status: StatusReason;
  uuid?: string;
  message?: string;
}

export interface RequirementStatus {
  group: string;
  version: string;
  kind: string;
  name: string;
  status: StatusReason;
  message: string;
  uuid?: string;
  dependents?: DependentStatus[];
}

export interface ResourceInstance {
  name: string;
  namespace?: string;
}

export interface ResourceList {
  group: string;
  kind: string;
  instances: ResourceInstance[];
}

export interface CleanupStatus {
  pendingDeletion?: ResourceList[];
}

export interface ClusterServiceVersionStatus {
  phase?: ClusterServiceVersionPhase;
  message?: string;
  reason?: CSVReason | (string & {});
  lastUpdateTime?: Time;
  lastTransitionTime?: Time;
  conditions?: ClusterServiceVersionCondition[];
  requirementStatus?: RequirementStatus[];
  certsLastUpdated?: Time;
  certsRotateAt?: Time;
  cleanup?: CleanupStatus;
}

/** operators.coreos.com/v1alpha1 ClusterServiceVersion (`csv`, `csvs`). */
export interface ClusterServiceVersion extends KubernetesObject<'operators.coreos.com/v1alpha1', 'ClusterServiceVersion'> {
  spec: ClusterServiceVersionSpec;
  status?: ClusterServiceVersionStatus;
}
