/** Upstream label keys, API versions and owner references, verbatim. */
import type { OwnerReference } from '@olm/core';

export const OwnerKey = 'olm.owner';
export const OwnerNamespaceKey = 'olm.owner.namespace';
export const OwnerKindKey = 'olm.owner.kind';
export const ManagedLabelKey = 'olm.managed';
export const ManagedLabelValue = 'true';
/** Content hash of a Role's rules or a binding's roleRef + subjects, used by permission requirement checks. */
export const ContentHashLabelKey = 'olm.permissions.hash';
/** On a Role/RoleBinding copied into a target namespace: the operator namespace it was copied from. */
export const CopiedLabelKey = 'olm.copiedFrom';
export const KubeRbacAggregationKeyPrefix = 'rbac.authorization.k8s.io/aggregate-to-';
export const OperatorGroupAggregationKeyPrefix = 'olm.opgroup.permissions/aggregate-to-';
/** OperatorGroup annotation listing its provided APIs as `Kind.version.group`, comma-separated. */
export const OperatorGroupProvidedApisAnnotationKey = 'olm.providedAPIs';

export const RbacApiGroup = 'rbac.authorization.k8s.io';
export const RbacApiVersion = 'rbac.authorization.k8s.io/v1';
export const CsvApiVersion = 'operators.coreos.com/v1alpha1';
export const CsvKind = 'ClusterServiceVersion';
export const OperatorGroupKind = 'OperatorGroup';
export const CrdApiVersion = 'apiextensions.k8s.io/v1';
export const CrdKind = 'CustomResourceDefinition';
export const ApiServiceApiVersion = 'apiregistration.k8s.io/v1';
export const ApiServiceKind = 'APIService';

export type Labels = Record<string, string>;

/** The labels upstream's `ownerutil.OwnerLabel` puts on objects an owner generated. */
export function ownerLabels(owner: { readonly name: string; readonly namespace: string }, kind: string): Labels {
  return { [OwnerKey]: owner.name, [OwnerNamespaceKey]: owner.namespace, [OwnerKindKey]: kind };
}

/**
 * Upstream's `ownerutil.NonBlockingOwner`: not the controller, does not block deletion. Kubernetes needs
 * the owner's UID, so an owner without one (a CSV not created yet) yields no reference: the caller adds
 * it once the owner exists, as upstream's InstallPlan executor does.
 */
export function nonBlockingOwnerReferences(
  owner: { readonly name: string; readonly uid?: string | undefined },
  apiVersion: string,
  kind: string,
): OwnerReference[] {
  if (owner.uid === undefined || owner.uid === '') return [];
  return [{ apiVersion, kind, name: owner.name, uid: owner.uid, controller: false, blockOwnerDeletion: false }];
}
