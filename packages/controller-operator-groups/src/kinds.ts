import type { ClusterServiceVersion, OperatorGroup } from '@olm/api';
import type { CachedObject, ObjectKind } from '@olm/core';

/** The field manager of everything the OLM operator writes. */
export const fieldManager = 'olm-operator';

/** The kinds the OperatorGroup reconciler reads and writes. */
export const Kinds = {
  csv: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' },
  operatorGroup: { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup' },
  namespace: { apiVersion: 'v1', kind: 'Namespace' },
  serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount' },
  clusterRole: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
} as const satisfies Record<string, ObjectKind>;

/** A CSV and an OperatorGroup as stored (named, namespaced). */
export type Csv = ClusterServiceVersion & CachedObject & { metadata: { name: string; namespace: string } };
export type Og = OperatorGroup & CachedObject & { metadata: { name: string; namespace: string } };

export function csvReference(csv: { metadata: { name: string; namespace: string } }) {
  return { ...Kinds.csv, name: csv.metadata.name, namespace: csv.metadata.namespace };
}

export function ogReference(og: { metadata: { name: string; namespace: string } }) {
  return { ...Kinds.operatorGroup, name: og.metadata.name, namespace: og.metadata.namespace };
}
