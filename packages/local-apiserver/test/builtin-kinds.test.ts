import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, kubeConfigOf, startTestServer } from './helpers.js';

type AnyObject = KubernetesObject & Record<string, any>;

/** One object of every built-in kind OLM needs, as a controller would write it. */
const samples: AnyObject[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kinds' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'kinds' }, data: { a: '1' } },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret', namespace: 'kinds' }, stringData: { password: 'hunter2' } },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'kinds' }, spec: { selector: { app: 'x' }, ports: [{ port: 50051 }] } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'kinds' } },
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', namespace: 'kinds' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
  { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev', namespace: 'kinds' }, involvedObject: { kind: 'Pod', name: 'pod', namespace: 'kinds' }, reason: 'Created', message: 'made', type: 'Normal' },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'deploy', namespace: 'kinds' },
    spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'rs', namespace: 'kinds' },
    spec: { replicas: 0, selector: { matchLabels: { app: 'y' } }, template: { metadata: { labels: { app: 'y' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'role', namespace: 'kinds' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'binding', namespace: 'kinds' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role' },
    subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'kinds' }],
  },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'kinds-reader' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['list'] }] },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'kinds-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kinds-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'kinds' }],
  },
  { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.packages.example.com' }, spec: { group: 'packages.example.com', version: 'v1', groupPriorityMinimum: 2000, versionPriority: 15, service: { name: 'svc', namespace: 'kinds' } } },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'leader', namespace: 'kinds' }, spec: { holderIdentity: 'olm-1', leaseDurationSeconds: 15 } },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'vwc' },
    webhooks: [{ name: 'v.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', clientConfig: { service: { name: 'svc', namespace: 'kinds' } } }],
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'mwc' },
    webhooks: [{ name: 'm.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', clientConfig: { service: { name: 'svc', namespace: 'kinds' } } }],
  },
];

/** What the generic client needs to address an object. */
function header(sample: AnyObject) {
  const namespace = sample.metadata?.namespace;
  return { apiVersion: sample.apiVersion ?? '', kind: sample.kind ?? '', metadata: { name: sample.metadata?.name ?? '', ...(namespace !== undefined ? { namespace } : {}) } };
}

describe('built-in kinds', () => {
  let server: ApiServer;
  let objects: KubernetesObjectApi;

  beforeAll(async () => {
    server = await startTestServer();
    const config = kubeConfigOf(server);
    objects = KubernetesObjectApi.makeApiClient(config);
  });

  afterAll(async () => {
    await server.stop();
  });

  it('creates, reads, lists and deletes every kind OLM needs through the generic client', async () => {
    const created = new Map<string, AnyObject>();
    for (const sample of samples) created.set(sample.kind ?? '', await objects.create<AnyObject>(structuredClone(sample)));
    for (const sample of samples) {
      const stored = created.get(sample.kind ?? '');
      expect(stored, sample.kind).toMatchObject({ apiVersion: sample.apiVersion, kind: sample.kind, metadata: { name: sample.metadata?.name, uid: expect.any(String), resourceVersion: expect.stringMatching(/^\d+$/) } });
      const read = await objects.read<AnyObject>(header(sample));
      expect(read.metadata?.uid, sample.kind).toBe(stored?.metadata?.uid);
      const list = await objects.list(sample.apiVersion ?? '', sample.kind ?? '', sample.metadata?.namespace);
      expect(list.items.map((item) => item.metadata?.name), sample.kind).toContain(sample.metadata?.name);
    }
    // What each kind's strategy does on create.
    expect(created.get('Secret')).toMatchObject({ type: 'Opaque', data: { password: Buffer.from('hunter2').toString('base64') } });
    expect(created.get('Secret')?.['stringData']).toBeUndefined();
    expect(created.get('Service')?.['spec']).toMatchObject({ type: 'ClusterIP', clusterIP: expect.stringMatching(/^10\.96\./), ports: [{ port: 50051, targetPort: 50051, protocol: 'TCP' }] });
    expect(created.get('Deployment')?.['spec']).toMatchObject({ replicas: 1, strategy: { type: 'RollingUpdate' } });
    expect(created.get('Deployment')?.metadata?.generation).toBe(1);
    expect(created.get('Pod')?.['status']).toMatchObject({ phase: 'Pending' });
    expect(created.get('Namespace')).toMatchObject({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    expect(created.get('Lease')?.['spec']).toEqual({ holderIdentity: 'olm-1', leaseDurationSeconds: 15 });
    expect(created.get('ValidatingWebhookConfiguration')?.['webhooks']).toHaveLength(1);

    // A binding's roleRef cannot change.
    const binding = created.get('RoleBinding') as AnyObject;
    await expect(objects.replace<AnyObject>({ ...binding, roleRef: { ...binding['roleRef'], name: 'other' } })).rejects.toMatchObject({ code: 422 });
    // The same roleRef with its keys in another order is no change (compared as values, not text).
    // Raw HTTP: client-node's typed serializer would put the keys back in its own order.
    const { apiGroup, kind, name } = binding['roleRef'] as Record<string, string>;
    const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${binding.metadata?.namespace}/rolebindings/${binding.metadata?.name}`;
    const current = (await call(server, 'GET', path)).body as AnyObject;
    const reordered = await call(server, 'PUT', path, { ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } }, roleRef: { name, kind, apiGroup } });
    expect(reordered.status).toBe(200);

    for (const sample of [...samples].reverse()) {
      await objects.delete(header(sample));
    }
    for (const sample of samples.filter((candidate) => candidate.metadata?.namespace === undefined && candidate.kind !== 'Namespace')) {
      await expect(objects.read(header(sample)), sample.kind).rejects.toMatchObject({ code: 404 });
    }
  });

  it("gives every namespace a default ServiceAccount, made again when deleted, as kube-controller-manager does", async () => {
    const defaultAccount = (namespace: string) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } });
    await objects.create<AnyObject>({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'accounts' } });
    const first = await eventually(() => objects.read<AnyObject>(defaultAccount('accounts')));
    expect(first.metadata?.uid).toEqual(expect.any(String));
    // Seeded namespaces have one too.
    await eventually(() => objects.read<AnyObject>(defaultAccount('default')));

    await objects.delete(defaultAccount('accounts'));
    const again = await eventually(() => objects.read<AnyObject>(defaultAccount('accounts')));
    expect(again.metadata?.uid).not.toBe(first.metadata?.uid);

    // A namespace going away keeps nothing, the default account included.
    await objects.delete({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'accounts' } });
    await eventually(async () => {
      await expect(objects.read({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'accounts' } })).rejects.toMatchObject({ code: 404 });
    });
    await expect(objects.read(defaultAccount('accounts'))).rejects.toMatchObject({ code: 404 });
  });

  it('makes no default ServiceAccounts when told not to (as envtest, which runs no controller manager)', async () => {
    const bare = await startTestServer({ defaultServiceAccounts: false });
    try {
      await call(bare, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bare' } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await call(bare, 'GET', '/api/v1/namespaces/bare/serviceaccounts')).body.items).toEqual([]);
    } finally {
      await bare.stop();
    }
  });

  it('serves each kind in discovery with its scope', async () => {
    for (const sample of samples) {
      const [group, version] = sample.apiVersion?.includes('/') ? sample.apiVersion.split('/') : ['', sample.apiVersion];
      const document = await call(server, 'GET', group === '' ? `/api/${version}` : `/apis/${group}/${version}`);
      const resource = document.body.resources.find((entry: any) => entry.kind === sample.kind && !entry.name.includes('/'));
      expect(resource, sample.kind).toMatchObject({ namespaced: sample.metadata?.namespace !== undefined, verbs: expect.arrayContaining(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']) });
    }
  });
});
