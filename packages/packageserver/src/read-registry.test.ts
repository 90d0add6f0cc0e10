import { fileURLToPath } from 'node:url';
import { createRegistryClient, loadCatalog, startRegistryServer, type RegistryClient, type RegistryServer } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRegistry, type PackageQueries } from './read-registry.js';

const exampleCatalogDir = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));

describe('readRegistry over a real registry server', () => {
  let server: RegistryServer;
  let client: RegistryClient;

  beforeAll(async () => {
    server = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port: 0 });
    client = createRegistryClient(server.address, { deadlineMs: 10_000 });
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('reads every package with its channel heads (CSV included) and the bundles of each channel', async () => {
    const contents = await readRegistry(client);
    expect(contents.problems).toEqual([]);
    expect(contents.packages.map((pkg) => pkg.package.name)).toEqual(['acme-backup', 'acme-database', 'acme-monitoring']);
    const database = contents.packages[1]!;
    expect(database.package.defaultChannelName).toBe('stable');
    const stableHead = database.heads.get('stable');
    expect(stableHead instanceof Error ? stableHead.message : stableHead?.csvName).toBe('acme-database.v1.2.0');
    expect(JSON.parse((stableHead as { csvJson: string }).csvJson).kind).toBe('ClusterServiceVersion');
    expect(database.bundles.get('stable')?.map((bundle) => bundle.csvName).sort()).toEqual(['acme-database.v1.0.0', 'acme-database.v1.1.0', 'acme-database.v1.1.1', 'acme-database.v1.2.0']);
    expect(database.bundles.get('stable')?.find((bundle) => bundle.csvName === 'acme-database.v1.1.1')?.deprecation?.message).toMatch(/can lose backups/);
  });

  it('leaves out what a registry fails to answer and keeps the rest; an unreachable registry throws', async () => {
    // The real client, with some answers failing as a broken registry's would.
    const flaky: PackageQueries = {
      listPackages: () => client.listPackages(),
      getPackage: (name) => (name === 'acme-backup' ? Promise.reject(new Error('package "acme-backup" not found')) : client.getPackage(name)),
      getBundleForChannel: (pkg, channel) => (channel === 'fast' ? Promise.reject(new Error('no bundle in fast')) : client.getBundleForChannel(pkg, channel)),
      // eslint-disable-next-line require-yield
      listBundles: async function* () {
        throw new Error('stream reset');
      },
    };
    const contents = await readRegistry(flaky);
    expect(contents.problems).toEqual(['cannot list bundles, channel entries left empty: stream reset', 'package acme-backup: left out, cannot get it: package "acme-backup" not found']);
    expect(contents.packages.map((pkg) => pkg.package.name)).toEqual(['acme-database', 'acme-monitoring']);
    expect((contents.packages[0]!.heads.get('fast') as Error).message).toBe('no bundle in fast');
    const unreachable = createRegistryClient('127.0.0.1:1', { deadlineMs: 2_000 });
    try {
      await expect(readRegistry(unreachable)).rejects.toThrow(/ListPackages on 127\.0\.0\.1:1/);
    } finally {
      unreachable.close();
    }
  });
});
