import type { Condition, KubernetesObject, LabelSelector, ObjectReference, Time } from './meta.js';

export const OperatorGroupKind = 'OperatorGroup';

export const OperatorGroupConditionTypes = {
  ServiceAccount: 'OperatorGroupServiceAccount',
  MultipleOperatorGroup: 'MultipleOperatorGroup',
} as const;

export const OperatorGroupReasons = {
  ServiceAccountNotFound: 'ServiceAccountNotFound',
  MultipleOperatorGroupsFound: 'MultipleOperatorGroupsFound',
} as const;

export const OperatorGroupMessages = {
  MultipleOperatorGroupsFound: 'Multiple OperatorGroup found in the same namespace',
  serviceAccountNotFound: (name: string) => `ServiceAccount ${name} not found`,
} as const;

/** `spec.upgradeStrategy` (v1 only): a plain string, defaulted to `Default` by the CRD. */
export const UpgradeStrategies = {
  Default: 'Default',
  UnsafeFailForward: 'TechPreviewUnsafeFailForward',
} as const;
export type UpgradeStrategy = (typeof UpgradeStrategies)[keyof typeof UpgradeStrategies];

export interface OperatorGroupSpec {
  selector?: LabelSelector;
  targetNamespaces?: string[];
  serviceAccountName?: string;
  staticProvidedAPIs?: boolean;
  /** v1 only; v1alpha2 prunes it. */
  upgradeStrategy?: UpgradeStrategy;
}

export interface OperatorGroupStatus {
  namespaces?: string[];
  serviceAccountRef?: ObjectReference;
  lastUpdated: Time;
  /** v1 only. */
  conditions?: Condition[];
}

/** operators.coreos.com/v1 OperatorGroup (`og`); v1alpha2 is also served, without `upgradeStrategy` and `status.conditions`. */
export interface OperatorGroup extends KubernetesObject<'operators.coreos.com/v1' | 'operators.coreos.com/v1alpha2', 'OperatorGroup'> {
  spec?: OperatorGroupSpec;
  status?: OperatorGroupStatus;
}
