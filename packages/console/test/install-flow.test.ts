import { Kinds } from '@olm/api';
import { startTestCluster, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer, type ConsoleServer, type Json } from '../src/index.js';
import { consoleRequest, signedIn } from './console-http.js';

// The controllers are not running here: the test plays the catalog operator's part (the plan and the
// Subscription's installPlanRef), so what is checked is the console's own half of the flow.
describe('olm console install: preview from the InstallPlan, confirm approves, cancel deletes what it created', () => {
  let cluster: TestCluster;
  let server: ConsoleServer;
  const post = (path: string, body: unknown) => consoleRequest(server.port, path, { method: 'POST', headers: signedIn(server.port, server.token, true), body: JSON.stringify(body) });
  const get = (path: string) => consoleRequest(server.port, path, { headers: signedIn(server.port, server.token) });

  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: ['olm'] });
    server = await startConsoleServer({ client: cluster.client, limits: { maxPendingInstalls: 1 } });
  });
  afterAll(async () => {
    await server?.close();
    await cluster?.stop();
  });

  /** What the catalog operator does after resolving: a plan waiting for approval, referenced by the Subscription. */
  async function resolve(namespace: string, name: string): Promise<string> {
    const plan = await cluster.client.create<Json>({ ...Kinds.installPlan, metadata: { name: `install-${namespace}`, namespace }, spec: { approval: 'Manual', approved: false, clusterServiceVersionNames: ['acme-backup.v0.2.0', 'acme-database.v1.2.0'] } } as Json);
    await cluster.client.replaceStatus({ ...plan, status: { phase: 'RequiresApproval', catalogSources: [], plan: [
      { resolving: 'acme-backup.v0.2.0', status: 'Unknown', resource: { kind: 'ClusterServiceVersion', name: 'acme-backup.v0.2.0', group: 'operators.coreos.com', version: 'v1alpha1', sourceName: 'acme', sourceNamespace: 'olm' } },
      { resolving: 'acme-database.v1.2.0', status: 'Unknown', resource: { kind: 'ClusterServiceVersion', name: 'acme-database.v1.2.0', group: 'operators.coreos.com', version: 'v1alpha1', sourceName: 'acme', sourceNamespace: 'olm' } },
    ] } } as Json);
    const subscription = await cluster.client.get<Json>({ ...Kinds.subscription, namespace, name });
    await cluster.client.replaceStatus({ ...subscription, status: { lastUpdated: new Date().toISOString(), state: 'UpgradePending', installPlanRef: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan', name: plan.metadata!.name, namespace } } } as Json);
    return plan.metadata!.name!;
  }

  it('creates a Manual Subscription (and namespace and OperatorGroup), previews the plan by operator, and cancel deletes all of it', async () => {
    const started = await post('/api/install', { package: 'acme-backup', catalog: 'acme', catalogNamespace: 'olm', channel: 'stable', namespace: 'team-a', approval: 'Automatic' });
    expect(started.status).toBe(200);
    expect(started.json().created.map((object: Json) => object.kind)).toEqual(['Namespace', 'OperatorGroup', 'Subscription']);
    expect((await cluster.client.get<Json>({ ...Kinds.subscription, namespace: 'team-a', name: 'acme-backup' })).spec.installPlanApproval).toBe('Manual');
    expect((await get('/api/install/preview?namespace=team-a&subscription=acme-backup')).json()).toEqual({ ready: false, state: 'resolving' });

    // Only one install may wait at a time here (maxPendingInstalls 1).
    const second = await post('/api/install', { package: 'acme-database', catalog: 'acme', catalogNamespace: 'olm', namespace: 'team-b', approval: 'Manual' });
    expect(second.status).toBe(429);
    expect(second.json().message).toContain("the console's maxPendingInstalls");

    const plan = await resolve('team-a', 'acme-backup');
    const preview = (await get('/api/install/preview?namespace=team-a&subscription=acme-backup')).json();
    expect(preview).toMatchObject({ ready: true, plan, csvs: ['acme-backup.v0.2.0', 'acme-database.v1.2.0'] });
    expect(preview.operators.map((group: Json) => group.operator)).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);

    expect((await post('/api/install/cancel', { namespace: 'team-a', subscription: 'acme-backup' })).status).toBe(200);
    expect(await cluster.client.find({ ...Kinds.subscription, namespace: 'team-a', name: 'acme-backup' })).toBeUndefined();
    expect(await cluster.client.find({ ...Kinds.installPlan, namespace: 'team-a', name: plan })).toBeUndefined();
    expect(await cluster.client.find({ ...Kinds.operatorGroup, namespace: 'team-a', name: 'team-a' })).toBeUndefined();
    const namespace = await cluster.client.find<Json>({ ...Kinds.namespace, name: 'team-a' });
    expect(namespace === undefined || namespace.status?.phase === 'Terminating').toBe(true);
  });

  it('confirm approves the plan, then sets the approval asked for; a second confirm says nothing waits', async () => {
    await cluster.client.create({ ...Kinds.namespace, metadata: { name: 'team-c' } } as Json);
    await cluster.client.create({ ...Kinds.operatorGroup, metadata: { name: 'existing', namespace: 'team-c' }, spec: {} } as Json);
    const started = await post('/api/install', { package: 'acme-backup', catalog: 'acme', catalogNamespace: 'olm', namespace: 'team-c', approval: 'Automatic' });
    expect(started.json().created.map((object: Json) => object.kind)).toEqual(['Subscription']);
    const plan = await resolve('team-c', 'acme-backup');
    expect((await post('/api/install/confirm', { namespace: 'team-c', subscription: 'acme-backup' })).json()).toEqual({ approved: plan, approval: 'Automatic' });
    expect((await cluster.client.get<Json>({ ...Kinds.installPlan, namespace: 'team-c', name: plan })).spec.approved).toBe(true);
    expect((await cluster.client.get<Json>({ ...Kinds.subscription, namespace: 'team-c', name: 'acme-backup' })).spec.installPlanApproval).toBe('Automatic');
    const again = await post('/api/install/confirm', { namespace: 'team-c', subscription: 'acme-backup' });
    expect(again.status).toBe(409);
    expect(again.json().message).toBe('subscription team-c/acme-backup has no InstallPlan waiting for approval');
  });
});
