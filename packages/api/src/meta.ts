import type { OwnerReference } from '@olm/core';

/** The API group of every OLM v0 kind. */
export const GROUP = 'operators.coreos.com';

/** The apiVersions served for operators.coreos.com kinds. */
export const ApiVersions = {
  v1alpha1: 'operators.coreos.com/v1alpha1',
  v1alpha2: 'operators.coreos.com/v1alpha2',
  v1: 'operators.coreos.com/v1',
  v2: 'operators.coreos.com/v2',
} as const;

/** An RFC 3339 timestamp as Kubernetes serialises `metav1.Time` (`2024-01-02T03:04:05Z`). */
export type Time = string;

/** `metav1.ObjectMeta`, the fields OLM reads and writes. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time | null;
  deletionTimestamp?: Time | null;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

/** `metav1.OwnerReference`, `metav1.GroupVersionKind` and `rbacv1.PolicyRule`: their one home is @olm/core's contracts. */
export type { GroupVersionKind, OwnerReference, PolicyRule } from '@olm/core';

/**
 * An owner reference to `owner`, an object of `kind`, read from its metadata. Whether it controls the
 * dependent and blocks the owner's foreground deletion is the caller's choice: upstream varies both.
 */
export function ownerReferenceTo(
  kind: { readonly apiVersion: string; readonly kind: string },
  owner: { readonly metadata?: { readonly name?: string; readonly uid?: string } },
  flags: { readonly controller: boolean; readonly blockOwnerDeletion: boolean },
): OwnerReference & { controller: boolean; blockOwnerDeletion: boolean } {
  return { apiVersion: kind.apiVersion, kind: kind.kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', ...flags };
}

/** `corev1.ObjectReference`. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** `metav1.LabelSelector`: one type for the whole tree, with its matcher, in @olm/go-format. */
export type { LabelSelector, LabelSelectorRequirement } from '@olm/label-selector';

/** `True`, `False` or `Unknown` (`corev1.ConditionStatus`). */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** `metav1.Condition`, the standard condition shape (OperatorGroup, OperatorCondition, CatalogSource, OLMConfig). */
export interface Condition {
  type: string;
  status: ConditionStatus;
  observedGeneration?: number;
  lastTransitionTime: Time;
  reason: string;
  message: string;
}

/** A Kubernetes object of kind `K` in `apiVersion` `V`. */
export interface KubernetesObject<V extends string = string, K extends string = string> {
  apiVersion: V;
  kind: K;
  metadata: ObjectMeta;
}

/** `corev1.Toleration`. */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal' | (string & {});
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | (string & {});
  tolerationSeconds?: number;
}

/** A resource quantity (`100m`, `512Mi`, `2`). */
export type Quantity = string | number;

/** `corev1.ResourceRequirements`. */
export interface ResourceRequirements {
  limits?: Record<string, Quantity>;
  requests?: Record<string, Quantity>;
  claims?: { name: string; request?: string }[];
}

/** `corev1.EnvVar` (`valueFrom` kept opaque). */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
}

/** `corev1.VolumeMount`. */
export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
  subPathExpr?: string;
  mountPropagation?: string;
  recursiveReadOnly?: string;
}

/** Kubernetes types OLM passes through without looking inside (deployment specs, volumes, affinity, …). */
export type Opaque = Record<string, unknown>;
