import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '@olm/controller-runtime';
import type { RegistryServer } from '@olm/registry';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { condition, createOperatorNamespace, eventually, get, grpcCatalogSource, list, startCluster, startController, startRegistry, subscription } from './helpers.js';

// Issue 24 item 1: one broken Subscription must not block the namespace (unless OLMConfig asks for upstream's behaviour).
let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let registry: RegistryServer;
let controller: Awaited<ReturnType<typeof startController>>;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  registry = await startRegistry();
  await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
  controller = await startController(cluster.server, client);
});
afterAll(async () => {
  await controller?.stop();
  await registry?.stop();
  await cluster?.stop();
});

const setScope = (scope: 'Namespace' | 'Subscription') =>
  client.patch({ ...Kinds.olmConfig, name: 'cluster' }, { spec: { features: { resolutionFailureScope: scope } } }, { type: 'merge' }).catch(async () =>
    client.create({ ...Kinds.olmConfig, metadata: { name: 'cluster' }, spec: { features: { resolutionFailureScope: scope } } } as AnyObject),
  );
const failed = (sub: AnyObject | undefined) => condition(sub, 'ResolutionFailed');

describe('resolution failures scoped to the Subscription', () => {
  it('installs a healthy acme-database beside a Subscription to a package that does not exist; only the broken one fails', async () => {
    await createOperatorNamespace(client, 'healthy-beside-broken');
    await client.create(subscription('healthy-beside-broken', 'broken', { name: 'does-not-exist' }));
    await client.create(subscription('healthy-beside-broken', 'acme-database'));
    const database = await eventually(async () => {
      const sub = await get(client, Kinds.subscription, 'healthy-beside-broken', 'acme-database');
      return (sub?.status as { installedCSV?: string } | undefined)?.installedCSV ? sub : false;
    });
    expect(failed(database)).toBeUndefined();
    const broken = await eventually(async () => {
      const sub = await get(client, Kinds.subscription, 'healthy-beside-broken', 'broken');
      return failed(sub)?.status === 'True' && sub;
    });
    expect(failed(broken)).toMatchObject({ reason: 'ConstraintsNotSatisfiable', message: expect.stringContaining('no operators found in package does-not-exist') });
    // Its own message: what it asked for, where OLM looked, and what to do (not the healthy one's business).
    expect(failed(broken)!.message).not.toContain('subscription acme-database');
    expect(failed(broken)!.message).toContain('Subscription broken asks for package does-not-exist in channel stable from catalog olm/acme-examples');
    expect(failed(broken)!.message).toContain('Fix: correct spec.name (catalog olm/acme-examples offers acme-backup, acme-database, acme-monitoring)');
    const plans = await list(client, Kinds.installPlan, 'healthy-beside-broken');
    expect(plans.flatMap((plan) => (plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames)).toEqual(['acme-database.v1.2.0']);
  });

  it('with OLMConfig resolutionFailureScope: Namespace, fails every Subscription as upstream does', async () => {
    await setScope('Namespace');
    try {
      await createOperatorNamespace(client, 'all-or-nothing');
      await client.create(subscription('all-or-nothing', 'broken', { name: 'does-not-exist' }));
      await client.create(subscription('all-or-nothing', 'acme-database'));
      const database = await eventually(async () => {
        const sub = await get(client, Kinds.subscription, 'all-or-nothing', 'acme-database');
        return failed(sub)?.status === 'True' && sub;
      });
      expect(failed(database)!.message).toContain('no operators found in package does-not-exist');
      expect(await list(client, Kinds.installPlan, 'all-or-nothing')).toEqual([]);

      // Back to the default: the namespace resolves again, and the healthy Subscription installs.
      await setScope('Subscription');
      await eventually(async () => {
        const sub = await get(client, Kinds.subscription, 'all-or-nothing', 'acme-database');
        return (sub?.status as { installedCSV?: string } | undefined)?.installedCSV === 'acme-database.v1.2.0' && !failed(sub);
      });
    } finally {
      await setScope('Subscription');
    }
  });
});
