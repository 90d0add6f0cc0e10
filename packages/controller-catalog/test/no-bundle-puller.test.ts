import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import { condition, createOperatorNamespace, eventually, get, grpcCatalogSource, list, startCluster, startController, subscription } from './helpers.js';

/** A catalog whose only bundle names an image and carries no `olm.bundle.object` manifests. */
const imageOnlyCatalog = [
  { schema: 'olm.package', name: 'pictured', defaultChannel: 'stable' },
  { schema: 'olm.channel', package: 'pictured', name: 'stable', entries: [{ name: 'pictured.v1.0.0' }] },
  {
    schema: 'olm.bundle',
    name: 'pictured.v1.0.0',
    package: 'pictured',
    image: 'quay.io/acme/pictured-bundle:v1',
    properties: [{ type: 'olm.package', value: { packageName: 'pictured', version: '1.0.0' } }],
  },
];

describe('an image-only bundle without a bundle puller booted', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-no-puller-'));
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  let registry: RegistryServer;
  let controller: Awaited<ReturnType<typeof startController>>;

  beforeAll(async () => {
    mkdirSync(join(directory, 'catalog'));
    writeFileSync(join(directory, 'catalog', 'catalog.json'), imageOnlyCatalog.map((blob) => JSON.stringify(blob)).join('\n'));
    registry = await startRegistryServer({ catalog: await loadCatalog(join(directory, 'catalog')), port: 0 });
    cluster = await startCluster();
    await cluster.client.create(grpcCatalogSource('olm', 'pictures', registry.address));
    controller = await startController(cluster.server, cluster.client);
  });
  afterAll(async () => {
    await controller?.stop();
    await registry?.stop();
    await cluster?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('fails resolution naming the bundle and the plugin to boot, and creates no InstallPlan', async () => {
    const { client } = cluster;
    await createOperatorNamespace(client, 'pictures');
    await client.create(subscription('pictures', 'pictured', { source: 'pictures', sourceNamespace: 'olm' }));
    const failed = await eventually(async () => condition(await get(client, Kinds.subscription, 'pictures', 'pictured'), 'ResolutionFailed'));
    expect(failed).toMatchObject({ status: 'True', reason: 'ErrorPreventedResolution' });
    expect(failed.message).toContain(
      "bundle pictured.v1.0.0 only names its image and no bundle puller is booted to unpack it; boot a bundle puller plugin such as @olm/bundle-puller's bundlePullerPlugin",
    );
    expect(await list(client, Kinds.installPlan, 'pictures')).toEqual([]);
  });
});
