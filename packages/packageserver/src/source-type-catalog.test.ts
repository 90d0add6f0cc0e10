import { fileURLToPath } from 'node:url';
import type { CatalogBundleKey, CatalogConnection, CatalogContent } from '@olm/core';
import { catalogFromConfigMapData, createCatalogSourceTypes, createRegistryIndex, loadCatalog, startRegistryServer } from '@olm/registry';
import { describe, expect, it } from 'vitest';
import { buildPackageManifest } from './build-package-manifest.js';
import { indexQueries, loadForManifests } from './source-type-catalog.js';
import { readRegistry } from './read-registry.js';

const exampleCatalogDir = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));

/** The PackageManifests of a catalog, as the packageserver builds them. */
async function manifestsOf(content: CatalogContent) {
  const contents = await readRegistry(indexQueries(createRegistryIndex(content)));
  return { problems: contents.problems, manifests: contents.packages.map((pkg) => buildPackageManifest({ namespace: 'olm', name: 'acme' }, pkg)) };
}

describe('loadForManifests', () => {
  it('fetches only the channel heads of a connection offering manifests on demand, and builds the manifests a whole load builds', async () => {
    const server = await startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port: 0 });
    const grpc = createCatalogSourceTypes().find((type) => type.sourceType === 'grpc')!;
    const connection = await grpc.open({ namespace: 'olm', name: 'acme', spec: { address: server.address } });
    try {
      const fetched: string[] = [];
      let wholeLoads = 0;
      const recording: CatalogConnection = {
        ...connection,
        load: () => ((wholeLoads += 1), connection.load()),
        loadBundle: (key: CatalogBundleKey) => (fetched.push(`${key.packageName}/${key.channelName}/${key.name}`), connection.loadBundle!(key)),
      };
      const onDemand = await manifestsOf(await loadForManifests(recording));
      const whole = await manifestsOf(await connection.load());
      expect(wholeLoads).toBe(0);
      // one bundle per channel head, nothing else
      expect(fetched.sort()).toEqual(['acme-backup/stable/acme-backup.v0.2.0', 'acme-database/fast/acme-database.v2.0.0', 'acme-database/stable/acme-database.v1.2.0', 'acme-monitoring/stable/acme-monitoring.v0.1.0']);
      expect(onDemand.problems).toEqual([]);
      expect(onDemand).toEqual(whole);
    } finally {
      await connection.close();
      await server.stop();
    }
  });
});

describe('indexQueries', () => {
  it('answers readRegistry from an in-process index as a registry would over gRPC', async () => {
    const csv = (name: string, version: string, replaces?: string) => ({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name },
      spec: { version, displayName: 'Thing', ...(replaces ? { replaces } : {}) },
    });
    const index = createRegistryIndex(
      catalogFromConfigMapData({
        customResourceDefinitions: '[]',
        clusterServiceVersions: JSON.stringify([csv('thing.v1.0.0', '1.0.0'), csv('thing.v1.1.0', '1.1.0', 'thing.v1.0.0')]),
        packages: JSON.stringify([{ packageName: 'thing', defaultChannel: 'stable', channels: [{ name: 'stable', currentCSV: 'thing.v1.1.0' }] }]),
      }),
    );
    const contents = await readRegistry(indexQueries(index));
    expect(contents.problems).toEqual([]);
    expect(contents.packages.map((pkg) => pkg.package.name)).toEqual(['thing']);
    const [thing] = contents.packages;
    const head = thing!.heads.get('stable');
    expect(head).not.toBeInstanceOf(Error);
    expect(JSON.parse((head as { csvJson: string }).csvJson).metadata.name).toBe('thing.v1.1.0');
    expect(thing!.bundles.get('stable')?.map((bundle) => bundle.csvName).sort()).toEqual(['thing.v1.0.0', 'thing.v1.1.0']);
  });
});
