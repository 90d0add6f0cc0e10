import { FieldManagers, Kinds as ApiKinds } from '@olm/api';
import type { ObjectKind } from '@olm/core';

/** A kind of object that can be a component of an Operator. */
export interface ComponentKind extends ObjectKind {
  readonly namespaced: boolean;
}

const kind = (apiVersion: string, name: string, namespaced: boolean): ComponentKind => ({ apiVersion, kind: name, namespaced });
/** A component kind whose objects the controllers read: typed as `@olm/api`'s table types it. */
const typed = <T>(of: ObjectKind<T>, namespaced: boolean): ComponentKind & ObjectKind<T> => ({ apiVersion: of.apiVersion, kind: of.kind, namespaced });

const subscription = typed(ApiKinds.subscription, true);
const installPlan = typed(ApiKinds.installPlan, true);
const csv = typed(ApiKinds.clusterServiceVersion, true);
const crd = typed(ApiKinds.customResourceDefinition, false);

/**
 * Secrets, ConfigMaps, Services and webhook configurations are watched as metadata only: the cache
 * then holds names, labels and owners of every one in the cluster (what finding components needs),
 * never their content, which costs far more memory than the few an operator owns.
 */
const metadataOnly = (apiVersion: string, name: string, namespaced: boolean): ComponentKind => ({ ...kind(apiVersion, name, namespaced), metadataOnly: true });

/** Every kind an Operator's components are looked for in, in the order `status.components.refs` lists them. */
export const componentKinds: readonly ComponentKind[] = [
  subscription,
  installPlan,
  csv,
  kind('operators.coreos.com/v2', 'OperatorCondition', true),
  crd,
  kind('apiregistration.k8s.io/v1', 'APIService', false),
  kind('v1', 'Namespace', false),
  kind('apps/v1', 'Deployment', true),
  kind('v1', 'ServiceAccount', true),
  kind('rbac.authorization.k8s.io/v1', 'Role', true),
  kind('rbac.authorization.k8s.io/v1', 'RoleBinding', true),
  kind('rbac.authorization.k8s.io/v1', 'ClusterRole', false),
  kind('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', false),
  metadataOnly('v1', 'Service', true),
  metadataOnly('v1', 'ConfigMap', true),
  metadataOnly('v1', 'Secret', true),
  metadataOnly('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', false),
  metadataOnly('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', false),
];

export const Kinds = {
  operator: ApiKinds.operator,
  subscription,
  installPlan,
  csv,
  crd,
} as const;

/** The field manager of everything these controllers write. */
export const fieldManager = FieldManagers.olmOperator;
