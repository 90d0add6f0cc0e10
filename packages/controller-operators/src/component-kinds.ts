import { FieldManagers } from '@olm/api';
import type { ObjectKind } from '@olm/core';

/** A kind of object that can be a component of an Operator. */
export interface ComponentKind extends ObjectKind {
  readonly namespaced: boolean;
  /**
   * Whether it is read from the shared informer cache (and watched). Secrets, ConfigMaps, Services and
   * webhook configurations are not: caching every one in the cluster would cost far more memory than the
   * few an operator owns, so they are listed from the API server, filtered by label there.
   */
  readonly cached: boolean;
}

const kind = (apiVersion: string, name: string, namespaced: boolean, cached: boolean): ComponentKind => ({ apiVersion, kind: name, namespaced, cached });

/** Every kind an Operator's components are looked for in, in the order `status.components.refs` lists them. */
export const componentKinds: readonly ComponentKind[] = [
  kind('operators.coreos.com/v1alpha1', 'Subscription', true, true),
  kind('operators.coreos.com/v1alpha1', 'InstallPlan', true, true),
  kind('operators.coreos.com/v1alpha1', 'ClusterServiceVersion', true, true),
  kind('operators.coreos.com/v2', 'OperatorCondition', true, true),
  kind('apiextensions.k8s.io/v1', 'CustomResourceDefinition', false, true),
  kind('apiregistration.k8s.io/v1', 'APIService', false, true),
  kind('v1', 'Namespace', false, true),
  kind('apps/v1', 'Deployment', true, true),
  kind('v1', 'ServiceAccount', true, true),
  kind('rbac.authorization.k8s.io/v1', 'Role', true, true),
  kind('rbac.authorization.k8s.io/v1', 'RoleBinding', true, true),
  kind('rbac.authorization.k8s.io/v1', 'ClusterRole', false, true),
  kind('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', false, true),
  kind('v1', 'Service', true, false),
  kind('v1', 'ConfigMap', true, false),
  kind('v1', 'Secret', true, false),
  kind('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', false, false),
  kind('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', false, false),
];

export const Kinds = {
  operator: { apiVersion: 'operators.coreos.com/v1', kind: 'Operator' },
  subscription: componentKinds[0]!,
  installPlan: componentKinds[1]!,
  csv: componentKinds[2]!,
  crd: componentKinds[4]!,
} as const;

/** The field manager of everything these controllers write. */
export const fieldManager = FieldManagers.olmOperator;
