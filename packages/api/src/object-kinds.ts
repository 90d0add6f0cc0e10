import { ApiVersionsV1 } from './cluster-catalog.js';
import { ApiVersions } from './meta.js';

/**
 * The kinds OLM reads and writes, as `{ apiVersion, kind }` in the versions OLM uses: one table for
 * every controller, so that a kind is spelled once.
 */
export const Kinds = {
  clusterServiceVersion: { apiVersion: ApiVersions.v1alpha1, kind: 'ClusterServiceVersion' },
  subscription: { apiVersion: ApiVersions.v1alpha1, kind: 'Subscription' },
  installPlan: { apiVersion: ApiVersions.v1alpha1, kind: 'InstallPlan' },
  catalogSource: { apiVersion: ApiVersions.v1alpha1, kind: 'CatalogSource' },
  operatorGroup: { apiVersion: ApiVersions.v1, kind: 'OperatorGroup' },
  olmConfig: { apiVersion: ApiVersions.v1, kind: 'OLMConfig' },
  operator: { apiVersion: ApiVersions.v1, kind: 'Operator' },
  operatorCondition: { apiVersion: ApiVersions.v2, kind: 'OperatorCondition' },
  clusterCatalog: { apiVersion: ApiVersionsV1.v1, kind: 'ClusterCatalog' },
  clusterExtension: { apiVersion: ApiVersionsV1.v1, kind: 'ClusterExtension' },
  customResourceDefinition: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
  apiService: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService' },
  namespace: { apiVersion: 'v1', kind: 'Namespace' },
  configMap: { apiVersion: 'v1', kind: 'ConfigMap' },
  secret: { apiVersion: 'v1', kind: 'Secret' },
  service: { apiVersion: 'v1', kind: 'Service' },
  serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount' },
  pod: { apiVersion: 'v1', kind: 'Pod' },
  deployment: { apiVersion: 'apps/v1', kind: 'Deployment' },
  role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  roleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  clusterRole: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  clusterRoleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  validatingWebhookConfiguration: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
  mutatingWebhookConfiguration: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration' },
} as const;

/** The field managers of what OLM's two operators write, as upstream's deployments name them. */
export const FieldManagers = { olmOperator: 'olm-operator', catalogOperator: 'catalog-operator' } as const;
