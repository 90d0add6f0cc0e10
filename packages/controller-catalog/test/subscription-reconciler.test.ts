import type { KubeClient } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as testing from '@olm/testing';
import { createCatalogController } from '../src/index.js';
import { Kinds, type AnyObject } from '../src/kinds.js';
import type { LiveSubscription } from '../src/resolution/namespace-snapshot.js';
import { writeSubscriptions, type Working } from '../src/subscriptions/subscription-writes.js';
import { condition, controllerOptions, createNamespace, eventually, get, startCluster, subscription } from './helpers.js';

// Only the `subscription` reconciler runs: no namespace pass, nothing resolves. Catalog health and the referenced
// InstallPlan's state still reach the Subscription, and what resolution wrote (state, currentCSV, ResolutionFailed)
// is never touched; a namespace-pass write from a stale read keeps what the subscription reconciler wrote.

const namespace = 'sub-split';
const resolutionFailed = { type: 'ResolutionFailed', status: 'True', reason: 'ConstraintsNotSatisfiable', message: 'no operators found', lastTransitionTime: '2026-01-01T00:00:00Z' };

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let stopReconciler: () => Promise<void>;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  await createNamespace(client, namespace);
  await client.create({ ...Kinds.catalogSource, metadata: { name: 'cat', namespace }, spec: { sourceType: 'grpc', address: '127.0.0.1:1' } });
  await setCatalogState('READY');
  await client.create(subscription(namespace, 'sub', { source: 'cat', sourceNamespace: namespace, name: 'pkg' }));
  const sub = (await get(client, Kinds.subscription, namespace, 'sub'))!;
  await client.replaceStatus({
    ...sub,
    status: {
      state: 'AtLatestKnown',
      currentCSV: 'pkg.v1',
      installedCSV: 'pkg.v1',
      installPlanRef: { apiVersion: Kinds.installPlan.apiVersion, kind: Kinds.installPlan.kind, name: 'install-abc', namespace },
      installPlanGeneration: 1,
      conditions: [resolutionFailed],
      lastUpdated: '2026-01-01T00:00:00Z',
    },
  });
  const running = await testing.startReconcilers({
    kubeconfig: cluster.server.kubeconfig,
    controller: () => {
      const controller = createCatalogController(controllerOptions(client));
      return { ...controller, reconcilers: controller.reconcilers.filter((reconciler) => reconciler.name === 'subscription') };
    },
  });
  stopReconciler = running.stop;
});
afterAll(async () => {
  await stopReconciler?.();
  await cluster?.stop();
});

async function setCatalogState(lastObservedState: string): Promise<void> {
  const source = (await get(client, Kinds.catalogSource, namespace, 'cat'))!;
  await client.replaceStatus({ ...source, status: { connectionState: { address: '127.0.0.1:1', lastObservedState, lastConnect: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } } });
}

const readSubscription = async () => (await client.get<LiveSubscription>({ ...Kinds.subscription, namespace, name: 'sub' }));

/** What the namespace pass wrote, unchanged. */
function expectResolutionFieldsKept(sub: LiveSubscription, expected: { state: string; currentCSV: string }) {
  expect(sub.status?.state).toBe(expected.state);
  expect(sub.status?.currentCSV).toBe(expected.currentCSV);
  expect(sub.status?.installedCSV).toBe('pkg.v1');
  expect(sub.status?.installPlanRef?.name).toBe('install-abc');
  expect(condition(sub, 'ResolutionFailed')).toEqual(resolutionFailed);
}

describe('the subscription reconciler', () => {
  it('reports catalog health and the referenced InstallPlan without a namespace pass, leaving resolution fields alone', async () => {
    let sub = await eventually(async () => {
      const current = await readSubscription();
      return condition(current, 'CatalogSourcesUnhealthy')?.status === 'False' && condition(current, 'InstallPlanMissing') ? current : undefined;
    });
    expect(condition(sub, 'InstallPlanMissing')).toMatchObject({ status: 'True', reason: 'ReferencedInstallPlanNotFound' });
    expect(sub.status?.catalogHealth).toMatchObject([{ catalogSourceRef: { name: 'cat', namespace }, healthy: true }]);
    expectResolutionFieldsKept(sub, { state: 'AtLatestKnown', currentCSV: 'pkg.v1' });

    // The catalog goes unhealthy: the CatalogSource watch brings the Subscription.
    await setCatalogState('TRANSIENT_FAILURE');
    sub = await eventually(async () => {
      const current = await readSubscription();
      return condition(current, 'CatalogSourcesUnhealthy')?.status === 'True' ? current : undefined;
    });
    expect(condition(sub, 'CatalogSourcesUnhealthy')?.message).toBe(`targeted catalogsource ${namespace}/cat unhealthy`);
    expect(sub.status?.catalogHealth).toMatchObject([{ healthy: false }]);
    expectResolutionFieldsKept(sub, { state: 'AtLatestKnown', currentCSV: 'pkg.v1' });

    // The referenced plan appears, waiting for approval: the InstallPlan watch brings the Subscription.
    await client.create({ ...Kinds.installPlan, metadata: { name: 'install-abc', namespace }, spec: { approval: 'Manual', approved: false, clusterServiceVersionNames: ['pkg.v1'], generation: 1 } });
    const plan = (await get(client, Kinds.installPlan, namespace, 'install-abc')) as AnyObject;
    await client.replaceStatus({ ...plan, status: { phase: 'RequiresApproval', catalogSources: [], plan: [] } });
    sub = await eventually(async () => {
      const current = await readSubscription();
      return condition(current, 'InstallPlanPending') ? current : undefined;
    });
    expect(condition(sub, 'InstallPlanPending')).toMatchObject({ status: 'True', reason: 'RequiresApproval' });
    expect(condition(sub, 'InstallPlanMissing')).toBeUndefined();
    expectResolutionFieldsKept(sub, { state: 'AtLatestKnown', currentCSV: 'pkg.v1' });
  });

  it('and the namespace pass write only their own part: a write from a stale read loses nothing of the other', async () => {
    const stale = await readSubscription();
    expect(condition(stale, 'CatalogSourcesUnhealthy')?.status).toBe('True');
    await setCatalogState('READY');
    await eventually(async () => condition(await readSubscription(), 'CatalogSourcesUnhealthy')?.status === 'False');

    // The namespace pass decided an upgrade from what it read before the catalog recovered.
    const working: Working[] = [{ object: stale, status: { ...stale.status, state: 'UpgradePending' as const, currentCSV: 'pkg.v2', lastUpdated: '2026-02-02T00:00:00Z' } }];
    await writeSubscriptions({ client: () => client, fieldManager: 'test' }, working);
    const written = await readSubscription();
    expectResolutionFieldsKept(written, { state: 'UpgradePending', currentCSV: 'pkg.v2' });
    expect(written.status?.lastUpdated).toBe('2026-02-02T00:00:00Z');
    expect(condition(written, 'CatalogSourcesUnhealthy')?.status).toBe('False');
    expect(written.status?.catalogHealth).toMatchObject([{ healthy: true }]);
    expect(condition(written, 'InstallPlanPending')).toMatchObject({ reason: 'RequiresApproval' });

    // The subscription reconciler's next write keeps the namespace pass's.
    await setCatalogState('TRANSIENT_FAILURE');
    const after = await eventually(async () => {
      const current = await readSubscription();
      return condition(current, 'CatalogSourcesUnhealthy')?.status === 'True' ? current : undefined;
    });
    expectResolutionFieldsKept(after, { state: 'UpgradePending', currentCSV: 'pkg.v2' });
  });
});
