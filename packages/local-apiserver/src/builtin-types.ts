import type { KubeObject } from './kube-object.js';
import { timestampAge } from '@olm/go-format';
import { labelSelectorText } from '@olm/label-selector';
import { allVerbs, type PrinterColumn, type ResourceType } from './resource-type.js';
import type { ScaleSubresource } from './scale-subresource.js';
import { ageColumn, createdAtColumn, nameColumn } from './table.js';

/** The built-in kinds the server serves, with their printer columns and field selectors. */
export const seededNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

function get(object: unknown, ...path: string[]): unknown {
  let current = object;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function text(object: unknown, ...path: string[]): string {
  const value = get(object, ...path);
  return value === undefined || value === null ? '' : String(value);
}

function column(name: string, cell: (object: KubeObject) => unknown, options: { type?: string; priority?: number; description?: string } = {}): PrinterColumn {
  return { name, type: options.type ?? 'string', priority: options.priority ?? 0, description: options.description ?? '', cell };
}

function count(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length;
  return 0;
}

interface BuiltinSpec {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: ScaleSubresource;
  generation?: boolean;
  columns?: PrinterColumn[];
  fieldLabels?: Record<string, (object: KubeObject) => string>;
  requiresResourceVersionOnUpdate?: boolean;
  isDeletionForbidden?: (object: KubeObject) => boolean;
}

function builtin(spec: BuiltinSpec): ResourceType {
  const columns = spec.columns ?? [nameColumn, createdAtColumn];
  return {
    group: spec.group,
    versions: [spec.version],
    storageVersion: spec.version,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    namespaced: spec.namespaced,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    verbs: allVerbs,
    statusSubresource: spec.status ?? false,
    ...(spec.scale ? { scale: spec.scale } : {}),
    tracksGeneration: spec.generation ?? false,
    strategicMerge: true,
    requiresResourceVersionOnUpdate: spec.requiresResourceVersionOnUpdate ?? false,
    ...(spec.fieldLabels ? { fieldLabels: spec.fieldLabels } : {}),
    columns: () => columns,
    ...(spec.isDeletionForbidden ? { isDeletionForbidden: spec.isDeletionForbidden } : {}),
  };
}

function containerReady(pod: KubeObject): string {
  const statuses = get(pod, 'status', 'containerStatuses');
  const total = count(get(pod, 'spec', 'containers'));
  const ready = Array.isArray(statuses) ? statuses.filter((status) => get(status, 'ready') === true).length : 0;
  return `${ready}/${total}`;
}

function servicePorts(service: KubeObject): string {
  const ports = get(service, 'spec', 'ports');
  if (!Array.isArray(ports) || ports.length === 0) return '<none>';
  return ports.map((port) => `${text(port, 'port')}/${text(port, 'protocol') || 'TCP'}`).join(',');
}

function selectorText(selector: unknown): string {
  if (typeof selector !== 'object' || selector === null) return '<none>';
  const entries = Object.entries(selector as Record<string, unknown>);
  return entries.length === 0 ? '<none>' : entries.map(([key, value]) => `${key}=${String(value)}`).join(',');
}

function containerField(object: KubeObject, field: string): string {
  const containers = get(object, 'spec', 'template', 'spec', 'containers');
  return Array.isArray(containers) ? containers.map((container) => text(container, field)).join(',') : '';
}

/** Deployments and ReplicaSets scale `spec.replicas`; their Scale selects pods with `spec.selector`. */
const workloadScale: ScaleSubresource = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  selector: (object) => labelSelectorText(get(object, 'spec', 'selector')),
};

export function builtinResourceTypes(): ResourceType[] {
  return [
    builtin({
      group: '',
      version: 'v1',
      plural: 'namespaces',
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      status: true,
      columns: [nameColumn, column('Status', (o) => text(o, 'status', 'phase'), { description: 'The status of the namespace' }), ageColumn],
      fieldLabels: { 'status.phase': (o) => text(o, 'status', 'phase') },
      isDeletionForbidden: (o) => (seededNamespaces as readonly string[]).includes(o.metadata.name ?? ''),
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'configmaps',
      kind: 'ConfigMap',
      namespaced: true,
      shortNames: ['cm'],
      columns: [nameColumn, column('Data', (o) => count(o['data']) + count(o['binaryData']), { type: 'string' }), ageColumn],
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'secrets',
      kind: 'Secret',
      namespaced: true,
      columns: [nameColumn, column('Type', (o) => text(o, 'type')), column('Data', (o) => count(o['data'])), ageColumn],
      fieldLabels: { type: (o) => text(o, 'type') },
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'serviceaccounts',
      kind: 'ServiceAccount',
      namespaced: true,
      shortNames: ['sa'],
      columns: [nameColumn, column('Secrets', (o) => count(o['secrets'])), ageColumn],
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'services',
      kind: 'Service',
      namespaced: true,
      shortNames: ['svc'],
      categories: ['all'],
      status: true,
      columns: [
        nameColumn,
        column('Type', (o) => text(o, 'spec', 'type') || 'ClusterIP'),
        column('Cluster-IP', (o) => text(o, 'spec', 'clusterIP') || '<none>'),
        column('External-IP', () => '<none>'),
        column('Port(s)', servicePorts),
        ageColumn,
        column('Selector', (o) => selectorText(get(o, 'spec', 'selector')), { priority: 1 }),
      ],
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'pods',
      kind: 'Pod',
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
      status: true,
      columns: [
        nameColumn,
        column('Ready', containerReady),
        column('Status', (o) => text(o, 'status', 'phase') || 'Pending'),
        column('Restarts', () => 0, { type: 'integer' }),
        ageColumn,
        column('IP', (o) => text(o, 'status', 'podIP') || '<none>', { priority: 1 }),
        column('Node', (o) => text(o, 'spec', 'nodeName') || '<none>', { priority: 1 }),
      ],
      fieldLabels: {
        'spec.nodeName': (o) => text(o, 'spec', 'nodeName'),
        'spec.serviceAccountName': (o) => text(o, 'spec', 'serviceAccountName'),
        'status.phase': (o) => text(o, 'status', 'phase'),
        'status.podIP': (o) => text(o, 'status', 'podIP'),
        'spec.restartPolicy': (o) => text(o, 'spec', 'restartPolicy'),
        'spec.schedulerName': (o) => text(o, 'spec', 'schedulerName'),
      },
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      columns: [
        column('Last Seen', (o) => timestampAge(o['lastTimestamp'] ?? o['eventTime'] ?? o.metadata.creationTimestamp)),
        column('Type', (o) => text(o, 'type')),
        column('Reason', (o) => text(o, 'reason')),
        column('Object', (o) => `${text(o, 'involvedObject', 'kind').toLowerCase()}/${text(o, 'involvedObject', 'name')}`),
        column('Message', (o) => text(o, 'message')),
      ],
      fieldLabels: {
        'involvedObject.kind': (o) => text(o, 'involvedObject', 'kind'),
        'involvedObject.namespace': (o) => text(o, 'involvedObject', 'namespace'),
        'involvedObject.name': (o) => text(o, 'involvedObject', 'name'),
        'involvedObject.uid': (o) => text(o, 'involvedObject', 'uid'),
        'involvedObject.apiVersion': (o) => text(o, 'involvedObject', 'apiVersion'),
        'involvedObject.resourceVersion': (o) => text(o, 'involvedObject', 'resourceVersion'),
        'involvedObject.fieldPath': (o) => text(o, 'involvedObject', 'fieldPath'),
        reason: (o) => text(o, 'reason'),
        reportingComponent: (o) => text(o, 'reportingComponent'),
        source: (o) => text(o, 'source', 'component'),
        type: (o) => text(o, 'type'),
      },
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      plural: 'deployments',
      kind: 'Deployment',
      namespaced: true,
      shortNames: ['deploy'],
      categories: ['all'],
      status: true,
      scale: workloadScale,
      generation: true,
      columns: [
        nameColumn,
        column('Ready', (o) => `${Number(get(o, 'status', 'readyReplicas') ?? 0)}/${Number(get(o, 'spec', 'replicas') ?? 1)}`),
        column('Up-to-date', (o) => Number(get(o, 'status', 'updatedReplicas') ?? 0), { type: 'integer' }),
        column('Available', (o) => Number(get(o, 'status', 'availableReplicas') ?? 0), { type: 'integer' }),
        ageColumn,
        column('Containers', (o) => containerField(o, 'name'), { priority: 1 }),
        column('Images', (o) => containerField(o, 'image'), { priority: 1 }),
        column('Selector', (o) => selectorText(get(o, 'spec', 'selector', 'matchLabels')), { priority: 1 }),
      ],
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      plural: 'replicasets',
      kind: 'ReplicaSet',
      namespaced: true,
      shortNames: ['rs'],
      categories: ['all'],
      status: true,
      scale: workloadScale,
      generation: true,
      columns: [
        nameColumn,
        column('Desired', (o) => Number(get(o, 'spec', 'replicas') ?? 1), { type: 'integer' }),
        column('Current', (o) => Number(get(o, 'status', 'replicas') ?? 0), { type: 'integer' }),
        column('Ready', (o) => Number(get(o, 'status', 'readyReplicas') ?? 0), { type: 'integer' }),
        ageColumn,
      ],
    }),
    builtin({ group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role', namespaced: true }),
    builtin({
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      plural: 'rolebindings',
      kind: 'RoleBinding',
      namespaced: true,
      columns: [nameColumn, column('Role', (o) => `${text(o, 'roleRef', 'kind')}/${text(o, 'roleRef', 'name')}`), ageColumn],
    }),
    builtin({ group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false }),
    builtin({
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      plural: 'clusterrolebindings',
      kind: 'ClusterRoleBinding',
      namespaced: false,
      columns: [nameColumn, column('Role', (o) => `${text(o, 'roleRef', 'kind')}/${text(o, 'roleRef', 'name')}`), ageColumn],
    }),
    builtin({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      status: true,
      generation: true,
      requiresResourceVersionOnUpdate: true,
    }),
    builtin({
      group: 'apiregistration.k8s.io',
      version: 'v1',
      plural: 'apiservices',
      kind: 'APIService',
      namespaced: false,
      categories: ['api-extensions'],
      status: true,
      generation: true,
      columns: [
        nameColumn,
        column('Service', (o) => (get(o, 'spec', 'service') ? `${text(o, 'spec', 'service', 'namespace')}/${text(o, 'spec', 'service', 'name')}` : 'Local')),
        column('Available', (o) => {
          const conditions = get(o, 'status', 'conditions');
          const available = Array.isArray(conditions) ? conditions.find((c) => get(c, 'type') === 'Available') : undefined;
          return available ? text(available, 'status') : 'Unknown';
        }),
        ageColumn,
      ],
    }),
    builtin({
      group: 'coordination.k8s.io',
      version: 'v1',
      plural: 'leases',
      kind: 'Lease',
      namespaced: true,
      columns: [nameColumn, column('Holder', (o) => text(o, 'spec', 'holderIdentity')), ageColumn],
    }),
    builtin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      plural: 'validatingwebhookconfigurations',
      kind: 'ValidatingWebhookConfiguration',
      namespaced: false,
      categories: ['api-extensions'],
      generation: true,
      columns: [nameColumn, column('Webhooks', (o) => count(o['webhooks']), { type: 'integer' }), ageColumn],
    }),
    builtin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      plural: 'mutatingwebhookconfigurations',
      kind: 'MutatingWebhookConfiguration',
      namespaced: false,
      categories: ['api-extensions'],
      generation: true,
      columns: [nameColumn, column('Webhooks', (o) => count(o['webhooks']), { type: 'integer' }), ageColumn],
    }),
    builtin({
      group: 'networking.k8s.io',
      version: 'v1',
      plural: 'networkpolicies',
      kind: 'NetworkPolicy',
      namespaced: true,
      shortNames: ['netpol'],
      generation: true,
      columns: [nameColumn, column('Pod-Selector', (o) => selectorText(get(o, 'spec', 'podSelector', 'matchLabels')).replace('<none>', '<none>')), ageColumn],
    }),
  ];
}
