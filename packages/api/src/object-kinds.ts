import type { CachedObject, ObjectKind } from '@olm/core';
import type { CatalogSource } from './catalog-source.js';
import { ApiVersionsV1, type ClusterCatalog } from './cluster-catalog.js';
import type { ClusterExtension } from './cluster-extension.js';
import type { ClusterServiceVersion } from './cluster-service-version.js';
import type { InstallPlan } from './install-plan.js';
import type { ApiService, CustomResourceDefinitionObject, Deployment, Namespace, Role, RoleBinding, ServiceAccount, WebhookConfiguration } from './kube-objects.js';
import { ApiVersions } from './meta.js';
import type { OLMConfig } from './olm-config.js';
import type { OperatorCondition } from './operator-condition.js';
import type { OperatorGroup } from './operator-group.js';
import type { Operator } from './operator.js';
import type { Subscription } from './subscription.js';

/**
 * An object of an OLM kind as the informer cache and the API server hand it out: the kind's type, as plain
 * JSON, with the name the server always sets (and the namespace, for a namespaced kind).
 */
export type Cached<T> = T & CachedObject & { metadata: { name: string } };
export type CachedNamespaced<T> = Cached<T> & { metadata: { namespace: string } };

/** A kind whose objects are `O` (curried so that apiVersion and kind keep their literal types). */
function kindOf<O>() {
  return <const V extends string, const K extends string>(apiVersion: V, kind: K): ObjectKind<O> & { readonly apiVersion: V; readonly kind: K } => ({
    apiVersion,
    kind,
  });
}

/**
 * The kinds OLM reads and writes, as `{ apiVersion, kind }` in the versions OLM uses: one table for
 * every controller, so that a kind is spelled once. OLM's own kinds, and the built-in kinds the controllers
 * read (`kube-objects.ts`), carry their object type, so typed readers (`cache.get(Kinds.subscription,
 * name, namespace)`) return a `Cached<Subscription>`. ConfigMaps, Secrets, Services and Pods read as
 * plain `CachedObject`s.
 */
export const Kinds = {
  clusterServiceVersion: kindOf<CachedNamespaced<ClusterServiceVersion>>()(ApiVersions.v1alpha1, 'ClusterServiceVersion'),
  subscription: kindOf<CachedNamespaced<Subscription>>()(ApiVersions.v1alpha1, 'Subscription'),
  installPlan: kindOf<CachedNamespaced<InstallPlan>>()(ApiVersions.v1alpha1, 'InstallPlan'),
  catalogSource: kindOf<CachedNamespaced<CatalogSource>>()(ApiVersions.v1alpha1, 'CatalogSource'),
  operatorGroup: kindOf<CachedNamespaced<OperatorGroup>>()(ApiVersions.v1, 'OperatorGroup'),
  olmConfig: kindOf<Cached<OLMConfig>>()(ApiVersions.v1, 'OLMConfig'),
  operator: kindOf<Cached<Operator>>()(ApiVersions.v1, 'Operator'),
  operatorCondition: kindOf<CachedNamespaced<OperatorCondition>>()(ApiVersions.v2, 'OperatorCondition'),
  clusterCatalog: kindOf<Cached<ClusterCatalog>>()(ApiVersionsV1.v1, 'ClusterCatalog'),
  clusterExtension: kindOf<Cached<ClusterExtension>>()(ApiVersionsV1.v1, 'ClusterExtension'),
  customResourceDefinition: kindOf<Cached<CustomResourceDefinitionObject>>()('apiextensions.k8s.io/v1', 'CustomResourceDefinition'),
  apiService: kindOf<Cached<ApiService>>()('apiregistration.k8s.io/v1', 'APIService'),
  namespace: kindOf<Cached<Namespace>>()('v1', 'Namespace'),
  configMap: { apiVersion: 'v1', kind: 'ConfigMap' },
  secret: { apiVersion: 'v1', kind: 'Secret' },
  service: { apiVersion: 'v1', kind: 'Service' },
  serviceAccount: kindOf<CachedNamespaced<ServiceAccount>>()('v1', 'ServiceAccount'),
  pod: { apiVersion: 'v1', kind: 'Pod' },
  deployment: kindOf<CachedNamespaced<Deployment>>()('apps/v1', 'Deployment'),
  role: kindOf<CachedNamespaced<Role>>()('rbac.authorization.k8s.io/v1', 'Role'),
  roleBinding: kindOf<CachedNamespaced<RoleBinding>>()('rbac.authorization.k8s.io/v1', 'RoleBinding'),
  clusterRole: kindOf<Cached<Role>>()('rbac.authorization.k8s.io/v1', 'ClusterRole'),
  clusterRoleBinding: kindOf<Cached<RoleBinding>>()('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'),
  validatingWebhookConfiguration: kindOf<Cached<WebhookConfiguration>>()('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration'),
  mutatingWebhookConfiguration: kindOf<Cached<WebhookConfiguration>>()('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration'),
} as const;

/** A ClusterServiceVersion as the informer cache and the API server hand it out: the one cached CSV type. */
export type CachedCsv = CachedNamespaced<ClusterServiceVersion>;

/** The field managers of what OLM's two operators write, as upstream's deployments name them. */
export const FieldManagers = { olmOperator: 'olm-operator', catalogOperator: 'catalog-operator' } as const;
