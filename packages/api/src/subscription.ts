import type { Approval } from './install-plan.js';
import type {
  ConditionStatus,
  EnvVar,
  KubernetesObject,
  LabelSelector,
  ObjectReference,
  Opaque,
  ResourceRequirements,
  Time,
  Toleration,
  VolumeMount,
} from './meta.js';

export const SubscriptionKind = 'Subscription';

/** `status.state`. `UpgradeAvailable` is declared but never set by OLM v0. */
export const SubscriptionStates = {
  None: '',
  Failed: 'UpgradeFailed',
  UpgradeAvailable: 'UpgradeAvailable',
  UpgradePending: 'UpgradePending',
  AtLatest: 'AtLatestKnown',
} as const;
export type SubscriptionState = (typeof SubscriptionStates)[keyof typeof SubscriptionStates];

export const SubscriptionConditionTypes = {
  CatalogSourcesUnhealthy: 'CatalogSourcesUnhealthy',
  InstallPlanMissing: 'InstallPlanMissing',
  InstallPlanPending: 'InstallPlanPending',
  InstallPlanFailed: 'InstallPlanFailed',
  ResolutionFailed: 'ResolutionFailed',
  BundleUnpacking: 'BundleUnpacking',
  BundleUnpackFailed: 'BundleUnpackFailed',
  Deprecated: 'Deprecated',
  PackageDeprecated: 'PackageDeprecated',
  ChannelDeprecated: 'ChannelDeprecated',
  BundleDeprecated: 'BundleDeprecated',
} as const;
export type SubscriptionConditionType = (typeof SubscriptionConditionTypes)[keyof typeof SubscriptionConditionTypes];

/** Reasons of Subscription conditions and of `status.reason`. */
export const SubscriptionReasons = {
  InvalidCatalog: 'InvalidCatalog',
  UpgradeSucceeded: 'UpgradeSucceeded',
  NoCatalogSourcesFound: 'NoCatalogSourcesFound',
  AllCatalogSourcesHealthy: 'AllCatalogSourcesHealthy',
  CatalogSourcesAdded: 'CatalogSourcesAdded',
  CatalogSourcesUpdated: 'CatalogSourcesUpdated',
  CatalogSourcesDeleted: 'CatalogSourcesDeleted',
  UnhealthyCatalogSourceFound: 'UnhealthyCatalogSourceFound',
  ReferencedInstallPlanNotFound: 'ReferencedInstallPlanNotFound',
  InstallPlanNotYetReconciled: 'InstallPlanNotYetReconciled',
  InstallPlanFailed: 'InstallPlanFailed',
  ConstraintsNotSatisfiable: 'ConstraintsNotSatisfiable',
  ErrorPreventedResolution: 'ErrorPreventedResolution',
  UnpackingInProgress: 'UnpackingInProgress',
  BundleUnpackFailed: 'BundleUnpackFailed',
  ErrorPreventedUnpacking: 'ErrorPreventedUnpacking',
  EnsureInstallPlanFailed: 'EnsureInstallPlanFailed',
  Deprecated: 'Deprecated',
} as const;
export type SubscriptionReason = (typeof SubscriptionReasons)[keyof typeof SubscriptionReasons];

/** This project's own Subscription conditions (upstream has none of these). */
export const ProjectSubscriptionConditionTypes = {
  /** A newer version waits outside the `olm-ts.io/version-pin` annotation's range (reason `NewerVersionOutsidePin`). */
  VersionPinned: 'VersionPinned',
} as const;

/** Reasons of this project's own Subscription conditions. */
export const ProjectSubscriptionReasons = {
  NewerVersionOutsidePin: 'NewerVersionOutsidePin',
} as const;

/** Overrides applied to the operator's deployments (`spec.config`). */
export interface SubscriptionConfig {
  selector?: LabelSelector;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  resources?: ResourceRequirements;
  /** `corev1.EnvFromSource` list. */
  envFrom?: Opaque[];
  env?: EnvVar[];
  /** `corev1.Volume` list. */
  volumes?: Opaque[];
  volumeMounts?: VolumeMount[];
  /** `corev1.Affinity`. */
  affinity?: Opaque;
  annotations?: Record<string, string>;
}

export interface SubscriptionSpec {
  /** CatalogSource name. */
  source: string;
  sourceNamespace: string;
  /** Package name. */
  name: string;
  channel?: string;
  startingCSV?: string;
  installPlanApproval?: Approval | (string & {});
  config?: SubscriptionConfig;
}

export interface SubscriptionCondition {
  type: SubscriptionConditionType | (string & {});
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: Time;
  lastTransitionTime?: Time;
}

/** The legacy `status.installplan` reference. */
export interface InstallPlanReference {
  apiVersion: string;
  kind: string;
  name: string;
  uuid: string;
}

export interface SubscriptionCatalogHealth {
  catalogSourceRef: ObjectReference;
  lastUpdated: Time;
  healthy: boolean;
}

export interface SubscriptionStatus {
  currentCSV?: string;
  installedCSV?: string;
  installplan?: InstallPlanReference;
  state?: SubscriptionState;
  reason?: SubscriptionReason | (string & {});
  installPlanGeneration?: number;
  installPlanRef?: ObjectReference;
  catalogHealth?: SubscriptionCatalogHealth[];
  conditions?: SubscriptionCondition[];
  lastUpdated: Time;
}

/** operators.coreos.com/v1alpha1 Subscription (`sub`, `subs`). */
export interface Subscription extends KubernetesObject<'operators.coreos.com/v1alpha1', 'Subscription'> {
  spec: SubscriptionSpec;
  status?: SubscriptionStatus;
}
