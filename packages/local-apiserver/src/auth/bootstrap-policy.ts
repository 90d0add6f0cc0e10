import type { Cluster } from '../cluster.js';
import type { KubeObject } from '../kube-object.js';
import type { ResourceRegistry } from '../resource-type.js';
import type { PolicyRule } from './rbac-rules.js';
import { systemAuthenticated, systemMasters, systemUnauthenticated } from './user-info.js';

/**
 * kube-apiserver's bootstrap RBAC policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), the part
 * that concerns users of this server: cluster-admin; admin, edit and view, which aggregate the
 * `system:aggregate-to-*` roles (their rules are filled by the aggregation controller); discovery,
 * basic-user and public-info-viewer with their bindings. Resource rules keep only what this server
 * serves, so `kubectl get clusterrole view -o yaml` lists no kind that does not exist here.
 */
const bootstrapLabels = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const autoupdate = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };
const read = ['get', 'list', 'watch'];
const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const readWrite = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface RoleSpec {
  readonly name: string;
  readonly labels?: Record<string, string>;
  readonly aggregateTo?: 'admin' | 'edit' | 'view';
  readonly rules: readonly PolicyRule[];
}

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });

const roles: readonly RoleSpec[] = [
  {
    name: 'cluster-admin',
    rules: [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ],
  },
  { name: 'admin', aggregateTo: 'admin', rules: [] },
  { name: 'edit', aggregateTo: 'edit', labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' }, rules: [] },
  { name: 'view', aggregateTo: 'view', labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }, rules: [] },
  {
    name: 'system:aggregate-to-admin',
    labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
    rules: [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(readWrite, ['rbac.authorization.k8s.io'], ['rolebindings', 'roles'])],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
    rules: [
      rule(read, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(write, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
      rule(['create'], [''], ['pods/eviction']),
      rule(write, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(write, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
      rule(write, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(write, ['batch'], ['cronjobs', 'jobs']),
      rule(write, ['policy'], ['poddisruptionbudgets']),
      rule(write, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
      rule(readWrite, ['coordination.k8s.io'], ['leases']),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
    rules: [
      rule(read, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
      rule(read, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
      rule(read, [''], ['namespaces']),
      rule(read, ['discovery.k8s.io'], ['endpointslices']),
      rule(read, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
      rule(read, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(read, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
      rule(read, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(read, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
    ],
  },
  {
    name: 'system:discovery',
    rules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] }],
  },
  {
    name: 'system:basic-user',
    rules: [rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])],
  },
  { name: 'system:public-info-viewer', rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }] },
  // For delegated authentication and authorization (an aggregated API server checking its callers).
  { name: 'system:auth-delegator', rules: [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])] },
];

const bindings: readonly { name: string; role: string; groups: string[] }[] = [
  { name: 'cluster-admin', role: 'cluster-admin', groups: [systemMasters] },
  { name: 'system:discovery', role: 'system:discovery', groups: [systemAuthenticated] },
  { name: 'system:basic-user', role: 'system:basic-user', groups: [systemAuthenticated] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', groups: [systemAuthenticated, systemUnauthenticated] },
];

/** Resource rules reduced to the resources (and subresources) the registry serves; empty rules dropped. */
function servedRules(rules: readonly PolicyRule[], registry: ResourceRegistry): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const policy of rules) {
    if (policy.resources === undefined || policy.resources.includes('*')) {
      out.push(policy);
      continue;
    }
    const group = policy.apiGroups?.[0] ?? '';
    const resources = policy.resources.filter((resource) => {
      const [plural = '', subresource] = resource.split('/');
      const type = registry.get(group, plural);
      if (!type) return false;
      if (subresource === undefined) return true;
      return (
        (subresource === 'status' && type.statusSubresource) ||
        (subresource === 'scale' && type.scale !== undefined) ||
        (type.additionalSubresources ?? []).some((extra) => extra.name === subresource)
      );
    });
    if (resources.length > 0) out.push({ ...policy, resources });
  }
  return out;
}

export function bootstrapClusterRoles(registry: ResourceRegistry): KubeObject[] {
  return roles.map((role) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: role.name, labels: { ...bootstrapLabels, ...role.labels }, annotations: { ...autoupdate } },
    ...(role.aggregateTo ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`rbac.authorization.k8s.io/aggregate-to-${role.aggregateTo}`]: 'true' } }] } } : {}),
    rules: servedRules(role.rules, registry),
  }));
}

export function bootstrapClusterRoleBindings(): KubeObject[] {
  return bindings.map((binding) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: binding.name, labels: { ...bootstrapLabels }, annotations: { ...autoupdate } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: binding.role },
    subjects: binding.groups.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name })),
  }));
}

/** Creates the bootstrap roles and bindings that are absent (never overwrites an edited one). */
export function ensureBootstrapPolicy(cluster: Cluster): void {
  const clusterRoles = cluster.registry.get('rbac.authorization.k8s.io', 'clusterroles');
  const clusterRoleBindings = cluster.registry.get('rbac.authorization.k8s.io', 'clusterrolebindings');
  if (!clusterRoles || !clusterRoleBindings) return;
  for (const [type, objects] of [
    [clusterRoles, bootstrapClusterRoles(cluster.registry)],
    [clusterRoleBindings, bootstrapClusterRoleBindings()],
  ] as const) {
    for (const object of objects) {
      if (!cluster.tryGet(type, undefined, object.metadata.name ?? '')) cluster.create(type, 'v1', undefined, object, { fieldManager: 'kube-apiserver' });
    }
  }
}
