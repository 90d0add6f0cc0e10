import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, installWidgetCrd, startTestServer } from './helpers.js';

const merge = { 'Content-Type': 'application/merge-patch+json' };

/** The namespace's conditions as `type status reason: message`. */
async function conditions(server: ApiServer, name: string): Promise<string[]> {
  const namespace = await call(server, 'GET', `/api/v1/namespaces/${name}`);
  return (namespace.body.status.conditions ?? []).map((condition: any) => `${condition.type} ${condition.status} ${condition.reason}: ${condition.message}`);
}

describe('namespace deletion as kube-controller-manager does it', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer({ apiServiceCheckIntervalMs: 50 });
    await installWidgetCrd(server);
  });

  afterAll(async () => {
    await server.stop();
  });

  it('deletes the contents, reports what finalizers hold, refuses new content, and goes once they are released', async () => {
    const created = await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'held' } });
    expect(created.body.spec).toEqual({ finalizers: ['kubernetes'] });
    await call(server, 'POST', '/api/v1/namespaces/held/configmaps', { metadata: { name: 'loose' } });
    const widgets = '/apis/example.com/v1/namespaces/held/widgets';
    expect((await call(server, 'POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', finalizers: ['example.com/hold'] }, spec: { size: 1 } })).status).toBe(201);

    const deleted = await call(server, 'DELETE', '/api/v1/namespaces/held');
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.deletionTimestamp).toBeDefined();
    expect(deleted.body.status.phase).toBe('Terminating');

    await eventually(async () =>
      expect(await conditions(server, 'held')).toEqual([
        'NamespaceDeletionDiscoveryFailure False ResourcesDiscovered: All resources successfully discovered',
        'NamespaceDeletionGroupVersionParsingFailure False ParsedGroupVersions: All legacy kube types successfully parsed',
        'NamespaceDeletionContentFailure False ContentDeleted: All content successfully deleted, may be waiting on finalization',
        'NamespaceContentRemaining True SomeResourcesRemain: Some resources are remaining: widgets.example.com has 1 resource instances',
        'NamespaceFinalizersRemaining True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      ]),
    );
    expect((await call(server, 'GET', '/api/v1/namespaces/held/configmaps/loose')).status).toBe(404);
    expect((await call(server, 'GET', `${widgets}/w`)).body.metadata.deletionTimestamp).toBeDefined();
    const namespace = await call(server, 'GET', '/api/v1/namespaces/held');
    expect(namespace.body.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(namespace.body.status.phase).toBe('Terminating');

    const refused = await call(server, 'POST', '/api/v1/namespaces/held/configmaps', { metadata: { name: 'late' } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated');

    await call(server, 'PATCH', `${widgets}/w`, { metadata: { finalizers: null } }, merge);
    await eventually(async () => expect((await call(server, 'GET', '/api/v1/namespaces/held')).status).toBe(404));
  });

  it('keeps a namespace whose metadata.finalizers remain after removing its own, with every condition cleared', async () => {
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'kept', finalizers: ['example.com/namespace-hold'] } });
    await call(server, 'POST', '/api/v1/namespaces/kept/configmaps', { metadata: { name: 'c' } });
    await call(server, 'DELETE', '/api/v1/namespaces/kept');
    const finalized = await eventually(async () => {
      const namespace = await call(server, 'GET', '/api/v1/namespaces/kept');
      expect(namespace.body.spec).toEqual({});
      return namespace.body;
    });
    expect(finalized.metadata.finalizers).toEqual(['example.com/namespace-hold']);
    expect(finalized.status.conditions.map((condition: any) => `${condition.type} ${condition.status} ${condition.reason}`)).toEqual([
      'NamespaceDeletionDiscoveryFailure False ResourcesDiscovered',
      'NamespaceDeletionGroupVersionParsingFailure False ParsedGroupVersions',
      'NamespaceDeletionContentFailure False ContentDeleted',
      'NamespaceContentRemaining False ContentRemoved',
      'NamespaceFinalizersRemaining False ContentHasNoFinalizers',
    ]);
    await call(server, 'PATCH', '/api/v1/namespaces/kept', { metadata: { finalizers: null } }, merge);
    await eventually(async () => expect((await call(server, 'GET', '/api/v1/namespaces/kept')).status).toBe(404));
  });

  it('stays Terminating while an aggregated API cannot be discovered, as kube does', async () => {
    const apiService = await call(server, 'POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
      metadata: { name: 'v1.broken.example.com' },
      spec: { group: 'broken.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, service: { name: 'nowhere', namespace: 'default' } },
    });
    expect(apiService.status).toBe(201);
    await eventually(async () => expect((await call(server, 'GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.broken.example.com')).body.status.conditions[0].status).toBe('False'));
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'undiscovered' } });
    await call(server, 'DELETE', '/api/v1/namespaces/undiscovered');
    await eventually(async () =>
      expect((await conditions(server, 'undiscovered'))[0]).toBe(
        'NamespaceDeletionDiscoveryFailure True DiscoveryFailed: Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: broken.example.com/v1: the server is currently unable to handle the request',
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await call(server, 'GET', '/api/v1/namespaces/undiscovered')).body.spec).toEqual({ finalizers: ['kubernetes'] });
    await call(server, 'DELETE', '/apis/apiregistration.k8s.io/v1/apiservices/v1.broken.example.com');
    await eventually(async () => expect((await call(server, 'GET', '/api/v1/namespaces/undiscovered')).status).toBe(404));
  });
});
