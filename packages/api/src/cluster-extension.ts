import { ApiVersionsV1 } from './cluster-catalog.js';
import type { Condition, LabelSelector, ObjectMeta } from './meta.js';

export const ClusterExtensionKind = 'ClusterExtension';

/** `spec.source.sourceType`: only `Catalog` here (upstream's experimental `OCIImage` is not served). */
export const ClusterExtensionSourceTypes = { catalog: 'Catalog' } as const;

/** `spec.source.catalog.upgradeConstraintPolicy`: the catalog's upgrade edges (default), or any version. */
export const UpgradeConstraintPolicies = { catalogProvided: 'CatalogProvided', selfCertified: 'SelfCertified' } as const;
export type UpgradeConstraintPolicy = (typeof UpgradeConstraintPolicies)[keyof typeof UpgradeConstraintPolicies];

/** `spec.install.preflight.crdUpgradeSafety.enforcement`. */
export const CrdUpgradeSafetyEnforcements = { strict: 'Strict', none: 'None' } as const;
export type CrdUpgradeSafetyEnforcement = (typeof CrdUpgradeSafetyEnforcements)[keyof typeof CrdUpgradeSafetyEnforcements];

/** `spec.config.configType`. */
export const ClusterExtensionConfigTypes = { inline: 'Inline' } as const;

/** The condition types of a ClusterExtension's status. */
export const ClusterExtensionConditionTypes = {
  installed: 'Installed',
  progressing: 'Progressing',
  deprecated: 'Deprecated',
  packageDeprecated: 'PackageDeprecated',
  channelDeprecated: 'ChannelDeprecated',
  bundleDeprecated: 'BundleDeprecated',
} as const;

/** Reasons, verbatim from upstream operator-controller. */
export const ClusterExtensionReasons = {
  succeeded: 'Succeeded',
  failed: 'Failed',
  retrying: 'Retrying',
  blocked: 'Blocked',
  rollingOut: 'RollingOut',
  deprecated: 'Deprecated',
  notDeprecated: 'NotDeprecated',
  deprecationStatusUnknown: 'DeprecationStatusUnknown',
  absent: 'Absent',
} as const;

/** Condition messages operator-controller writes. */
export const ClusterExtensionMessages = {
  desiredStateReached: 'Desired state reached',
  noBundleInstalled: 'No bundle installed',
} as const;

/**
 * operator-controller's finalizer: the extension's applied content is removed before the ClusterExtension
 * goes (upstream's name predates the revision applier; kept so tooling that knows it keeps working).
 */
export const ClusterExtensionCleanupFinalizer = 'olm.operatorframework.io/cleanup-contentmanager-cache';

export interface ClusterExtensionCatalogSource {
  packageName: string;
  version?: string;
  channels?: string[];
  selector?: LabelSelector;
  upgradeConstraintPolicy?: UpgradeConstraintPolicy;
}

export interface ClusterExtensionSpec {
  namespace: string;
  serviceAccount: { name: string };
  source: { sourceType: string; catalog?: ClusterExtensionCatalogSource };
  install?: { preflight?: { crdUpgradeSafety?: { enforcement: CrdUpgradeSafetyEnforcement } } };
  config?: { configType: string; inline?: { watchNamespace?: string; [key: string]: unknown } };
}

export interface BundleMetadata {
  name: string;
  version: string;
}

export interface ClusterExtensionStatus {
  conditions?: Condition[];
  install?: { bundle: BundleMetadata };
}

/** olm.operatorframework.io/v1 ClusterExtension (cluster-scoped): a package installed from the ClusterCatalogs. */
export interface ClusterExtension {
  apiVersion: typeof ApiVersionsV1.v1;
  kind: typeof ClusterExtensionKind;
  metadata: ObjectMeta;
  spec: ClusterExtensionSpec;
  status?: ClusterExtensionStatus;
}
