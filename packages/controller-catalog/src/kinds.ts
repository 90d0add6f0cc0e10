import type { CachedObject, ObjectKind } from '@olm/core';

/** The kinds the Catalog Operator reads and writes. */
export const Kinds = {
  catalogSource: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' },
  subscription: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription' },
  installPlan: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan' },
  clusterServiceVersion: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' },
  operatorGroup: { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup' },
  customResourceDefinition: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
  namespace: { apiVersion: 'v1', kind: 'Namespace' },
  configMap: { apiVersion: 'v1', kind: 'ConfigMap' },
} as const satisfies Record<string, ObjectKind>;

/** A plain-JSON object with the fields the controllers read typed loosely. */
export type AnyObject = CachedObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

export const nameOf = (object: CachedObject): string => object.metadata?.name ?? '';
export const namespaceOf = (object: CachedObject): string => object.metadata?.namespace ?? '';

/** RFC 3339 without fractions, as Kubernetes serialises `metav1.Time`. */

export function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
