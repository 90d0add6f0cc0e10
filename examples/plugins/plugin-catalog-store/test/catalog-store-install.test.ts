import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CachedObject } from '@olm/core';
import { distributionPlugins, exampleCatalogDirectory, lazyPlugin } from '@olm/olm';
import { startControllers, type RunningControllers } from '@olm/olm/local-cluster';
import { createPackageServerPlugin, waitForApiService } from '@olm/packageserver';
import { kubectlAvailable, kubectlFor, startTestCluster, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pluginCatalogStorePackage from '../package.json' with { type: 'json' };

type Json = CachedObject & Record<string, any>;

const store = mkdtempSync(join(tmpdir(), 'olm-catalog-store-'));
const operators = 'v1alpha1';

/**
 * apps/olm's distribution plus this package (the one added line), with the packageserver as
 * `olm packageserver` boots it: a CatalogSource of the new type, with no address, serves the
 * catalog operator (an operator installs) and the packageserver (kubectl lists its packages).
 */
describe('a new CatalogSource type from one package and one line in the plugin list', () => {
  let cluster: TestCluster;
  let controllers: RunningControllers | undefined;

  beforeAll(async () => {
    mkdirSync(join(store, 'olm'), { recursive: true });
    cpSync(exampleCatalogDirectory, join(store, 'olm', 'acme-store'), { recursive: true });
    cluster = await startTestCluster({ tls: true, apiServiceCheckIntervalMs: 500, requestTimeoutMs: 20_000, namespaces: ['olm'] });
    await cluster.client.create({
      apiVersion: `operators.coreos.com/${operators}`,
      kind: 'CatalogSource',
      metadata: { name: 'acme-store', namespace: 'olm' },
      spec: { sourceType: 'catalog-store', displayName: 'Acme (catalog store)', publisher: 'Acme' },
    } as Json);
    controllers = await startControllers({
      kubeconfig: cluster.server.kubeconfig,
      plugins: [
        ...distributionPlugins({ namespace: 'olm', leaderElection: false }),
        lazyPlugin('plugin-catalog-store', pluginCatalogStorePackage.version, async () => (await import('@olm/plugin-catalog-store')).createCatalogStorePlugin({ root: store })),
        createPackageServerPlugin({ globalNamespace: 'olm', register: { namespace: 'olm', unregisterOnStop: true } }),
      ],
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      logLevel: 'silent',
    });
  }, 120_000);

  afterAll(async () => {
    await controllers?.stop();
    await cluster?.stop();
    rmSync(store, { recursive: true, force: true });
  });

  it('the catalog operator connects to it and a Subscription installs an operator from it', async () => {
    const client = cluster.client;
    await expect
      .poll(async () => (await client.find<Json>({ apiVersion: `operators.coreos.com/${operators}`, kind: 'CatalogSource', namespace: 'olm', name: 'acme-store' }))?.status?.connectionState?.lastObservedState, {
        timeout: 60_000,
        interval: 200,
      })
      .toBe('READY');
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'store-db' } } as Json);
    await client.create({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'store-db', namespace: 'store-db' }, spec: { targetNamespaces: ['store-db'] } } as Json);
    await client.create({
      apiVersion: `operators.coreos.com/${operators}`,
      kind: 'Subscription',
      metadata: { name: 'acme-database', namespace: 'store-db' },
      spec: { name: 'acme-database', channel: 'stable', source: 'acme-store', sourceNamespace: 'olm' },
    } as Json);
    const subscription = () => client.find<Json>({ apiVersion: `operators.coreos.com/${operators}`, kind: 'Subscription', namespace: 'store-db', name: 'acme-database' });
    await expect.poll(async () => (await subscription())?.status?.installedCSV, { timeout: 60_000, interval: 200 }).toBeDefined();
    const installed = (await subscription())!.status.installedCSV as string;
    expect(installed).toMatch(/^acme-database\.v1\./);
    await expect
      .poll(async () => (await client.find<Json>({ apiVersion: `operators.coreos.com/${operators}`, kind: 'ClusterServiceVersion', namespace: 'store-db', name: installed }))?.status?.phase, {
        timeout: 60_000,
        interval: 200,
      })
      .toBe('Succeeded');
  }, 120_000);

  it('the packageserver reads it through the same point: its packages show in the PackageManifests API', async () => {
    await waitForApiService(cluster.client, { timeoutMs: 30_000 });
    const manifest = await cluster.client.get<Json>({ apiVersion: 'packages.operators.coreos.com/v1', kind: 'PackageManifest', namespace: 'olm', name: 'acme-database' });
    expect(manifest.status.catalogSource).toBe('acme-store');
    expect(manifest.status.catalogSourceDisplayName).toBe('Acme (catalog store)');
    expect(manifest.status.defaultChannel).toBe('stable');
  });

  it.skipIf(!kubectlAvailable())('kubectl get packagemanifests lists the new type\'s packages', async () => {
    const listed = await kubectlFor(cluster.server.kubeconfigPath).runOk(['get', 'packagemanifests', '-n', 'store-db']);
    expect(listed).toMatch(/^acme-database\s+Acme \(catalog store\)\s/m);
    expect(listed).toMatch(/^acme-monitoring\s+Acme \(catalog store\)\s/m);
  });
});
