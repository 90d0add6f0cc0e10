import type { KubeClient } from '@olm/core';
import type { ApiServer } from '@olm/local-apiserver';
import { loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPackageServer, type PackageServer } from '../src/index.js';
import { builtInSourceTypes, eventually, exampleCatalogDir, grpcCatalogSource, startCluster } from './helpers.js';

/**
 * The OLMConfig `cluster`'s `spec.features.packageServerSyncInterval` sets how often the
 * packageserver re-reads every catalog (upstream's packageserver reads it at start and restarts on
 * a change; here a change applies at once). Reads are counted from the server's own log lines.
 */
describe('packageserver re-read interval from the OLMConfig', () => {
  let cluster: { server: ApiServer; client: KubeClient; stop(): Promise<void> };
  let registry: RegistryServer;
  let packageServer: PackageServer;
  const reads: number[] = [];
  const logger = {
    debug() {},
    warn() {},
    error() {},
    info(message: string) {
      if (message === 'catalog read') reads.push(Date.now());
    },
    child: () => logger,
  };
  const olmConfig = { apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', name: 'cluster' } as const;
  /** Reads counted over a span, after letting a read in progress finish. */
  const readsDuring = async (milliseconds: number) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = reads.length;
    await new Promise((resolve) => setTimeout(resolve, milliseconds));
    return reads.length - before;
  };

  beforeAll(async () => {
    cluster = await startCluster();
    registry = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port: 0 });
    await cluster.client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
    // Upstream's --interval: the default while no OLMConfig sets one.
    packageServer = await startPackageServer({ catalogSourceTypes: builtInSourceTypes, client: cluster.client, tls: false, refreshIntervalMs: 1000, logger });
    await packageServer.waitForSync(30_000);
  }, 60_000);
  afterAll(async () => {
    await packageServer?.stop();
    await registry?.stop({ graceMs: 0 });
    await cluster?.stop();
  });

  it('re-reads at the default, at the OLMConfig value while set, and at the default again once it is gone', async () => {
    await eventually(() => (reads.length >= 3 ? true : undefined), { timeoutMs: 15_000, message: 'reads at the 1 s default' });

    await cluster.client.create({ ...olmConfig, metadata: { name: 'cluster' }, spec: { features: { packageServerSyncInterval: '1h' } } });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await readsDuring(3000)).toBe(0);

    await cluster.client.patch(olmConfig, { spec: { features: { packageServerSyncInterval: '1s' } } });
    await eventually(async () => ((await readsDuring(2500)) >= 1 ? true : undefined), { timeoutMs: 15_000, message: 'reads at the 1 s OLMConfig interval' });

    await cluster.client.patch(olmConfig, { spec: { features: { packageServerSyncInterval: '2h' } } });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await readsDuring(3000)).toBe(0);

    await cluster.client.delete(olmConfig);
    await eventually(async () => ((await readsDuring(2500)) >= 1 ? true : undefined), { timeoutMs: 15_000, message: 'reads at the default again' });
    // The packages stayed served throughout.
    expect(packageServer.store.list(undefined).map((manifest) => manifest.metadata.name)).toContain('acme-database');
  }, 60_000);
});
