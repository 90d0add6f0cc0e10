import type { CachedObject, KubeObject, ObjectKind } from '@olm/core';

/** The field manager of everything the OLM operator writes. */
export const fieldManager = 'olm-operator';

/** The kinds the OLM operator reads and writes. */
export const Kinds = {
  csv: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' },
  operatorGroup: { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup' },
  subscription: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription' },
  deployment: { apiVersion: 'apps/v1', kind: 'Deployment' },
  namespace: { apiVersion: 'v1', kind: 'Namespace' },
  serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount' },
  crd: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
  clusterRole: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  clusterRoleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  roleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  operatorCondition: { apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition' },
  apiService: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService' },
  olmConfig: { apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig' },
} as const satisfies Record<string, ObjectKind>;

/** upstream's fnv-1a 64-bit hash in hex, as used by the `olm.api.<hash>` CSV labels. */
export function fnv64aHex(text: string): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * prime) & 0xffffffffffffffffn;
  }
  return hash.toString(16);
}

/** A cached object of a known kind as the RBAC generator takes it (list items may omit apiVersion and kind). */
export function kubeObjectOf(object: CachedObject, kind: ObjectKind): KubeObject {
  return { ...object, ...kind, metadata: object.metadata ?? {} };
}
