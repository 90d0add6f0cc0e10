import type { CachedObject, ObjectKind } from '@olm/core';

/** The kinds the puller reads and writes, and the CatalogSource its ConfigMaps belong to. */
export const Kinds = {
  configMap: { apiVersion: 'v1', kind: 'ConfigMap' },
  secret: { apiVersion: 'v1', kind: 'Secret' },
  serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount' },
  catalogSource: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' },
} as const satisfies Record<string, ObjectKind>;

/** A ConfigMap or Secret as read: string data by key. */
export type DataObject = CachedObject & { readonly type?: string; readonly data?: Record<string, string> };
