import type { ObjectKind } from '@olm/core';

/** The field manager of everything these controllers write. */
export const fieldManager = 'olm-operator';

/** The kinds the OperatorCondition controllers read and write. */
export const Kinds = {
  csv: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' },
  operatorCondition: { apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition' },
  role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  roleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
} as const satisfies Record<string, ObjectKind>;
