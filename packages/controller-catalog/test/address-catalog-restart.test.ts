import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '@olm/core';
import { createManager } from '@olm/controller-runtime';
import { createCsvController } from '@olm/controller-csv';
import { createOperatorGroupsController } from '@olm/controller-operator-groups';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import type { CatalogControllerOptions } from '../src/index.js';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { writeCatalog, type PackageSpec } from './fbc-catalog.js';
import { approveInstallPlan, condition, createOperatorNamespace, eventually, get, grpcCatalogSource, list, sleep, startCluster, startController, subscription } from './helpers.js';

// A registry served on 127.0.0.1:<port> (as `olm catalog serve` does) is stopped and another one started on
// the same port, possibly with other content; nobody touches the CatalogSource. The OLM operator (controller-csv)
// runs too, so installed CSVs reach Succeeded and replaced ones go.

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let stopCsvController: () => Promise<void>;
const directory = mkdtempSync(join(tmpdir(), 'olm-address-restart-'));
const registries = new Set<RegistryServer>();

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  const csvController = createCsvController({ client, rbacGenerator: createRbacGenerator(), requeueAfterMs: 500, healthPollMs: 200 });
  const manager = createManager({ kubeconfig: cluster.server.kubeconfig, gracefulShutdownTimeoutMs: 2_000 });
  for (const reconciler of csvController.reconcilers) manager.add(reconciler);
  for (const reconciler of createOperatorGroupsController({ client, rbacGenerator: createRbacGenerator() }).reconcilers) manager.add(reconciler);
  await manager.start();
  stopCsvController = () => manager.stop();
});
afterAll(async () => {
  for (const registry of registries) await registry.stop({ graceMs: 0 });
  await stopCsvController?.();
  await cluster?.stop();
  rmSync(directory, { recursive: true, force: true });
});

/** Package `restart-op`, one channel `stable` along the given versions (each replacing the one before). */
function operator(...versions: string[]): PackageSpec {
  const name = (version: string) => `restart-op.v${version}`;
  return {
    name: 'restart-op',
    defaultChannel: 'stable',
    channels: { stable: versions.map((version, index) => ({ name: name(version), ...(index > 0 ? { replaces: name(versions[index - 1]!) } : {}) })) },
    bundles: versions.map((version) => ({ name: name(version), version })),
  };
}

let catalogs = 0;
async function catalogOf(pkg: PackageSpec) {
  const path = join(directory, `catalog-${(catalogs += 1)}`);
  writeCatalog(path, [pkg]);
  return loadCatalog(path);
}

/** A registry server on 127.0.0.1:`port` (0: a free one) serving `pkg`. */
async function serve(port: number, pkg: PackageSpec): Promise<RegistryServer> {
  const registry = await startRegistryServer({ catalog: await catalogOf(pkg), port });
  registries.add(registry);
  return registry;
}

async function stop(registry: RegistryServer): Promise<void> {
  await registry.stop({ graceMs: 0 });
  registries.delete(registry);
}

/** The catalog controller for one test, with `overrides`; stopped when `run` ends. */
async function withCatalogController(overrides: Partial<CatalogControllerOptions>, run: () => Promise<void>): Promise<void> {
  // Content is refreshed because the registry changed, never by the TTL, in these tests.
  const controller = await startController(cluster.server, client, { catalogCacheTtlMs: 60 * 60_000, catalogUnhealthyRetryMs: 200, ...overrides });
  try {
    await run();
  } finally {
    await controller.stop();
  }
}

/** A namespace with an OperatorGroup and a CatalogSource `address` on `address`. */
async function namespaceWithAddressCatalog(namespace: string, address: string): Promise<void> {
  await createOperatorNamespace(client, namespace);
  await client.create(grpcCatalogSource(namespace, 'address', address));
}

async function subscribe(namespace: string, approval: 'Automatic' | 'Manual' = 'Automatic'): Promise<void> {
  await client.create(subscription(namespace, 'restart-op', { source: 'address', sourceNamespace: namespace, channel: 'stable', installPlanApproval: approval }));
}

const statusOf = (object: AnyObject | undefined) => (object?.status ?? {}) as Record<string, unknown> & { installedCSV?: string; state?: string; phase?: string };

/** Waits until the Subscription's installed CSV is `csv`, at the latest known, and the CSV Succeeded. */
async function installed(namespace: string, csv: string): Promise<void> {
  await eventually(
    async () => {
      const sub = statusOf(await get(client, Kinds.subscription, namespace, 'restart-op'));
      return sub.installedCSV === csv && sub.state === 'AtLatestKnown' && statusOf(await get(client, Kinds.clusterServiceVersion, namespace, csv)).phase === 'Succeeded';
    },
    { timeoutMs: 30_000, message: `${namespace}: ${csv} installed and Succeeded` },
  );
}

const generationOf = (plan: AnyObject) => (plan.spec as { generation: number }).generation;
async function planCsvs(namespace: string): Promise<string[][]> {
  return (await list(client, Kinds.installPlan, namespace)).sort((a, b) => generationOf(a) - generationOf(b)).map((plan) => (plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames);
}

type ConnectionState = { address?: string; lastObservedState?: string; lastConnect?: string };
async function catalogSource(namespace: string): Promise<AnyObject> {
  return (await get(client, Kinds.catalogSource, namespace, 'address'))!;
}
const connectionStateOf = (source: AnyObject) => (source.status as { connectionState?: ConnectionState } | undefined)?.connectionState ?? {};

/** The CatalogSource as the user wrote it: spec and metadata apart from what the API server keeps. */
const userView = (source: AnyObject) => ({ spec: source.spec, generation: source.metadata?.generation, labels: source.metadata?.labels, annotations: source.metadata?.annotations });

describe('a catalog served on an address whose registry restarts', { timeout: 90_000 }, () => {
  it('upgrades an Automatic Subscription when the registry comes back on the same port with a new head', async () => {
    // Health checks far apart: only watching the connection can notice the restart in time.
    await withCatalogController({ catalogHealthCheckIntervalMs: 60_000 }, async () => {
      const namespace = 'restart-new-head';
      let registry = await serve(0, operator('1.0.0'));
      const port = registry.port;
      await namespaceWithAddressCatalog(namespace, `127.0.0.1:${port}`);
      await subscribe(namespace);
      await installed(namespace, 'restart-op.v1.0.0');
      const before = userView(await catalogSource(namespace));

      await stop(registry);
      await sleep(300);
      registry = await serve(port, operator('1.0.0', '2.0.0'));

      await installed(namespace, 'restart-op.v2.0.0');
      expect(await planCsvs(namespace)).toEqual([['restart-op.v1.0.0'], ['restart-op.v2.0.0']]);
      // the replaced CSV is gone, and the CatalogSource is as it was written
      await eventually(async () => (await get(client, Kinds.clusterServiceVersion, namespace, 'restart-op.v1.0.0')) === undefined, { message: 'v1.0.0 deleted' });
      expect(userView(await catalogSource(namespace))).toEqual(before);
      expect(connectionStateOf(await catalogSource(namespace))).toMatchObject({ address: `127.0.0.1:${port}`, lastObservedState: 'READY' });
    });
  });

  it('notices new content the connection never showed (in place, or a restart too quick to see): Automatic upgrades, Manual gets a plan', async () => {
    await withCatalogController({ catalogHealthCheckIntervalMs: 500 }, async () => {
      let registry = await serve(0, operator('1.0.0'));
      const port = registry.port;
      const automatic = 'digest-automatic';
      const manual = 'digest-manual';
      for (const namespace of [automatic, manual]) await namespaceWithAddressCatalog(namespace, `127.0.0.1:${port}`);
      await subscribe(automatic);
      await subscribe(manual, 'Manual');
      await installed(automatic, 'restart-op.v1.0.0');
      const firstPlan = await eventually(async () => {
        const [plan] = await list(client, Kinds.installPlan, manual);
        return statusOf(plan).phase === 'RequiresApproval' && plan;
      }, { message: 'the first Manual InstallPlan' });
      await approveInstallPlan(cluster.server, client, manual, firstPlan.metadata!.name!);
      await installed(manual, 'restart-op.v1.0.0');

      // new content behind the same connection: the client sees no disconnect at all
      await registry.reload(await catalogOf(operator('1.0.0', '2.0.0')));
      await installed(automatic, 'restart-op.v2.0.0');
      const pending = await eventually(async () => {
        const plans = await list(client, Kinds.installPlan, manual);
        const next = plans.find((plan) => generationOf(plan) === 2);
        return next && statusOf(next).phase === 'RequiresApproval' && next;
      }, { message: 'a second InstallPlan waiting for approval' });
      expect((pending.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames).toEqual(['restart-op.v2.0.0']);
      const waiting = await eventually(async () => {
        const sub = statusOf(await get(client, Kinds.subscription, manual, 'restart-op'));
        return sub.state === 'UpgradePending' && sub;
      }, { message: 'the Manual Subscription pending its upgrade' });
      expect(waiting).toMatchObject({ currentCSV: 'restart-op.v2.0.0', installedCSV: 'restart-op.v1.0.0', installPlanRef: expect.objectContaining({ name: pending.metadata?.name }) });

      // stopped and started again at once with another head
      await stop(registry);
      registry = await serve(port, operator('1.0.0', '2.0.0', '3.0.0'));
      await installed(automatic, 'restart-op.v3.0.0');
      expect(await planCsvs(automatic)).toEqual([['restart-op.v1.0.0'], ['restart-op.v2.0.0'], ['restart-op.v3.0.0']]);
    });
  });

  it('a restart with the same content upgrades nothing and writes nothing once settled', async () => {
    const metrics = new Registry();
    const snapshots = async () => (await metrics.getSingleMetricAsString('catalog_source_snapshots_total')).match(/namespace="same-content"[^}]*}\s+(\d+)/)?.[1];
    await withCatalogController({ catalogHealthCheckIntervalMs: 300, metrics }, async () => {
      const namespace = 'same-content';
      let registry = await serve(0, operator('1.0.0', '2.0.0'));
      const port = registry.port;
      await namespaceWithAddressCatalog(namespace, `127.0.0.1:${port}`);
      await subscribe(namespace);
      await installed(namespace, 'restart-op.v2.0.0');
      const versions = async () => [(await catalogSource(namespace)).metadata?.resourceVersion, (await get(client, Kinds.subscription, namespace, 'restart-op'))?.metadata?.resourceVersion];
      // steady: health checks and digests every 300 ms write nothing
      const steady = await versions();
      await sleep(1_500);
      expect(await versions()).toEqual(steady);
      const loaded = Number(await snapshots());

      // a quick restart with the same content: reloaded (the registry may have changed), nothing to do
      await stop(registry);
      registry = await serve(port, operator('1.0.0', '2.0.0'));
      await eventually(async () => Number(await snapshots()) > loaded, { message: 'catalog reloaded after the restart' });
      // an outage, then the same content again
      await stop(registry);
      await eventually(async () => connectionStateOf(await catalogSource(namespace)).lastObservedState === 'TRANSIENT_FAILURE', { message: 'outage seen' });
      registry = await serve(port, operator('1.0.0', '2.0.0'));
      await eventually(async () => connectionStateOf(await catalogSource(namespace)).lastObservedState === 'READY', { message: 'READY again' });
      await eventually(async () => condition(await get(client, Kinds.subscription, namespace, 'restart-op'), 'CatalogSourcesUnhealthy')?.status === 'False', { message: 'healthy again' });
      await sleep(1_000);

      const settled = await versions();
      await sleep(1_500);
      expect(await versions()).toEqual(settled);
      expect(await planCsvs(namespace)).toEqual([['restart-op.v2.0.0']]);
      expect(statusOf(await get(client, Kinds.subscription, namespace, 'restart-op'))).toMatchObject({ installedCSV: 'restart-op.v2.0.0', state: 'AtLatestKnown' });
    });
  });

  it('shows the down period in status.connectionState and the Subscriptions\' catalogHealth, using the last content meanwhile', async () => {
    await withCatalogController({ catalogHealthCheckIntervalMs: 60_000 }, async () => {
      const namespace = 'down-period';
      let registry = await serve(0, operator('1.0.0'));
      const port = registry.port;
      const address = `127.0.0.1:${port}`;
      await namespaceWithAddressCatalog(namespace, address);
      await subscribe(namespace);
      await installed(namespace, 'restart-op.v1.0.0');
      const up = connectionStateOf(await catalogSource(namespace));
      expect(up).toMatchObject({ address, lastObservedState: 'READY' });

      const stoppedAt = Math.floor(Date.now() / 1000) * 1000;
      await stop(registry);
      const down = await eventually(async () => {
        const state = connectionStateOf(await catalogSource(namespace));
        return state.lastObservedState === 'TRANSIENT_FAILURE' && state;
      }, { message: 'TRANSIENT_FAILURE recorded' });
      expect(down.address).toBe(address);
      expect(Date.parse(down.lastConnect!)).toBeGreaterThanOrEqual(stoppedAt);
      const unhealthy = await eventually(async () => {
        const sub = await get(client, Kinds.subscription, namespace, 'restart-op');
        return condition(sub, 'CatalogSourcesUnhealthy')?.status === 'True' && sub;
      }, { message: 'CatalogSourcesUnhealthy' });
      expect((unhealthy.status as { catalogHealth: Array<{ catalogSourceRef: { name: string }; healthy: boolean }> }).catalogHealth).toEqual([
        expect.objectContaining({ catalogSourceRef: expect.objectContaining({ name: 'address', namespace }), healthy: false }),
      ]);
      // while down: retried, nothing rewritten, and resolution keeps the content it had
      const whileDown = (await catalogSource(namespace)).metadata?.resourceVersion;
      await sleep(1_000);
      expect((await catalogSource(namespace)).metadata?.resourceVersion).toBe(whileDown);
      expect(condition(await get(client, Kinds.subscription, namespace, 'restart-op'), 'ResolutionFailed')).toBeUndefined();

      const restartedAt = Math.floor(Date.now() / 1000) * 1000;
      registry = await serve(port, operator('1.0.0'));
      const back = await eventually(async () => {
        const state = connectionStateOf(await catalogSource(namespace));
        return state.lastObservedState === 'READY' && state;
      }, { message: 'READY recorded' });
      expect(back.address).toBe(address);
      expect(Date.parse(back.lastConnect!)).toBeGreaterThanOrEqual(restartedAt);
      const healthy = await eventually(async () => {
        const sub = await get(client, Kinds.subscription, namespace, 'restart-op');
        return condition(sub, 'CatalogSourcesUnhealthy')?.status === 'False' && sub;
      }, { message: 'healthy again' });
      expect((healthy.status as { catalogHealth: Array<{ healthy: boolean }> }).catalogHealth.map((entry) => entry.healthy)).toEqual([true]);
    });
  });
});
