import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '@olm/core';
import { createManager, type Manager } from '@olm/controller-runtime';
import type { RegistryServer } from '@olm/registry';
import { catalogControllerAdditionalNamespaces, createCatalogController, type CatalogController } from '../src/index.js';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { controllerOptions, createOperatorNamespace, eventually, get, grpcCatalogSource, list, sleep, startCluster, startRegistry, subscription } from './helpers.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let registry: RegistryServer;
let manager: Manager;
let controller: CatalogController;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  registry = await startRegistry();
  await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
  for (const namespace of ['team-a', 'team-b', 'team-c']) {
    await createOperatorNamespace(client, namespace);
    await client.create(subscription(namespace, 'acme-database', {}));
  }
  controller = createCatalogController(controllerOptions(client));
  // Limited to two namespaces; the global catalog namespace is not among them.
  manager = createManager({
    kubeconfig: cluster.server.kubeconfig,
    namespaces: ['team-a', 'team-b'],
    additionalNamespaces: catalogControllerAdditionalNamespaces('olm'),
    gracefulShutdownTimeoutMs: 2_000,
  });
  for (const reconciler of controller.reconcilers) manager.add(reconciler);
  await manager.start();
});
afterAll(async () => {
  await manager?.stop();
  await controller?.close();
  await registry?.stop();
  await cluster?.stop();
});

const phaseOf = (object: AnyObject | undefined) => (object?.status as { phase?: string } | undefined)?.phase;

describe('a catalog controller limited to some namespaces', () => {
  it('installs from the global catalog in the watched namespaces and leaves the others alone', async () => {
    for (const namespace of ['team-a', 'team-b']) {
      const plan = await eventually(async () => {
        const plans = await list(client, Kinds.installPlan, namespace);
        return plans.length === 1 && phaseOf(plans[0]) === 'Complete' && plans[0];
      });
      expect((plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames).toEqual(['acme-database.v1.2.0']);
    }
    // The global CatalogSource is reconciled although its namespace is not watched.
    const source = await get(client, Kinds.catalogSource, 'olm', 'acme-examples');
    expect(source?.status).toMatchObject({ connectionState: { lastObservedState: 'READY' } });

    // team-c has the same set-up but is not watched: give it time, nothing happens there.
    await sleep(500);
    expect((await get(client, Kinds.subscription, 'team-c', 'acme-database'))?.status).toBeUndefined();
    expect(await list(client, Kinds.installPlan, 'team-c')).toEqual([]);
    expect(await list(client, Kinds.clusterServiceVersion, 'team-c')).toEqual([]);
  });
});
