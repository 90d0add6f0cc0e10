import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogBundle, CatalogConnection, CatalogContent, CatalogPackage, Property } from '@olm/core';
import { startRegistryServer, type RegistryServer } from '../src/grpc/index.js';
import { createCatalogSourceTypes } from '../src/sources/index.js';

/** A connection offering the contract's optional manifests on demand (both members, as readers require). */
type ManifestsOnDemand = CatalogConnection & Required<Pick<CatalogConnection, 'loadWithoutManifests' | 'loadBundle'>>;
const offersManifestsOnDemand = (connection: CatalogConnection): connection is ManifestsOnDemand =>
  typeof connection.loadWithoutManifests === 'function' && typeof connection.loadBundle === 'function';

// One package with the three kinds of bundle a registry serves: an image with olm.bundle.object
// manifests, an image with olm.csv.metadata only, and no image (manifests inline, sent by ListBundles).
const object = (manifest: object): Property => ({ type: 'olm.bundle.object', value: { data: Buffer.from(JSON.stringify(manifest)).toString('base64') } });
const csvOf = (name: string) => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name },
  spec: { install: { strategy: 'deployment', spec: { deployments: [{ name: 'db' }] } }, relatedImages: [{ name: 'db', image: 'quay.io/db/db:1' }] },
});
const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'dbs.example.com' } };
const bundle = (name: string, version: string, image: string, extra: Property[]): CatalogBundle => ({
  name,
  package: 'db',
  image,
  version,
  properties: [{ type: 'olm.package', value: { packageName: 'db', version } }, { type: 'olm.gvk', value: { group: 'example.com', kind: 'Db', version: 'v1' } }, ...extra],
});
const bundles = [
  bundle('db.v0.9.0', '0.9.0', '', [object(crd), object(csvOf('db.v0.9.0'))]),
  bundle('db.v1.0.0', '1.0.0', 'quay.io/db/bundle:1.0.0', [object(crd), object(csvOf('db.v1.0.0'))]),
  bundle('db.v2.0.0', '2.0.0', 'quay.io/db/bundle:2.0.0', [{ type: 'olm.csv.metadata', value: { displayName: 'Db', description: 'A database' } }]),
];
const pkg: CatalogPackage = {
  name: 'db',
  defaultChannel: 'stable',
  icon: { base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' },
  channels: new Map([
    [
      'stable',
      {
        name: 'stable',
        package: 'db',
        entries: [{ name: 'db.v0.9.0' }, { name: 'db.v1.0.0', replaces: 'db.v0.9.0' }, { name: 'db.v2.0.0', replaces: 'db.v1.0.0' }],
      },
    ],
  ]),
  bundles: new Map(bundles.map((item) => [item.name, item])),
  deprecations: [{ reference: { schema: 'olm.bundle', name: 'db.v0.9.0' }, message: 'too old' }],
};
const catalog: CatalogContent = { packages: new Map([['db', pkg]]) };
const manifestTypes = new Set(['olm.bundle.object', 'olm.csv.metadata']);
const withoutManifests = (properties: readonly Property[]) => properties.filter((property) => !manifestTypes.has(property.type));

describe('grpc connections: manifests on demand', () => {
  let server: RegistryServer;
  let connection: ManifestsOnDemand;
  let whole: CatalogContent;
  let lean: CatalogContent;

  beforeAll(async () => {
    server = await startRegistryServer({ catalog });
    const grpc = createCatalogSourceTypes().find((type) => type.sourceType === 'grpc')!;
    const opened = await grpc.open({ namespace: 'olm', name: 'db', spec: { address: server.address } });
    if (!offersManifestsOnDemand(opened)) throw new Error('a grpc connection should offer manifests on demand');
    connection = opened;
    whole = await connection.load();
    lean = await connection.loadWithoutManifests();
  });
  afterAll(async () => {
    await connection.close();
    await server.stop();
  });

  it('only grpc connections offer it', async () => {
    const types = new Map(createCatalogSourceTypes({ fetchConfigMap: async () => ({}), loadDirectory: async () => catalog }).map((type) => [type.sourceType, type]));
    const directory = await types.get('fbc-directory')!.open({ namespace: 'olm', name: 'dir', spec: { directory: '/catalog' } });
    const configMap = await types.get('configmap')!.open({ namespace: 'olm', name: 'cm', spec: { configMap: 'cm' } });
    for (const other of [directory, configMap]) expect([other.loadWithoutManifests, other.loadBundle]).toEqual([undefined, undefined]);
  });

  it('loads without the manifests of bundles with an image, and the same everything else', () => {
    const leanPackage = lean.packages.get('db')!;
    const wholePackage = whole.packages.get('db')!;
    expect(wholePackage.icon).toEqual(pkg.icon);
    expect(leanPackage.icon).toBeUndefined();
    expect(leanPackage.channels).toEqual(wholePackage.channels);
    expect(leanPackage.deprecations).toEqual(wholePackage.deprecations);
    for (const name of ['db.v1.0.0', 'db.v2.0.0']) {
      const leanBundle = leanPackage.bundles.get(name)!;
      const wholeBundle = wholePackage.bundles.get(name)!;
      expect(leanBundle.properties.map((property) => property.type)).toEqual(['olm.package', 'olm.gvk']);
      expect(leanBundle.relatedImages).toBeUndefined();
      expect({ ...leanBundle, properties: [] }).toEqual({ ...wholeBundle, properties: [], relatedImages: undefined });
      expect(leanBundle.properties).toEqual(withoutManifests(wholeBundle.properties));
    }
    expect(wholePackage.bundles.get('db.v1.0.0')!.relatedImages).toEqual([{ name: 'db', image: 'quay.io/db/db:1' }]);
    // ListBundles carries the manifests of a bundle without an image.
    expect(leanPackage.bundles.get('db.v0.9.0')).toEqual(wholePackage.bundles.get('db.v0.9.0'));
  });

  it('fetches one bundle as a whole load gives it', async () => {
    for (const name of ['db.v1.0.0', 'db.v2.0.0']) {
      expect(await connection.loadBundle({ packageName: 'db', channelName: 'stable', name })).toEqual(whole.packages.get('db')!.bundles.get(name));
    }
    await expect(connection.loadBundle({ packageName: 'db', channelName: 'beta', name: 'db.v1.0.0' })).rejects.toMatchObject({
      code: 'OLM_REGISTRY_RPC_FAILED',
      message: expect.stringContaining('package "db", channel "beta" not found'),
    });
  });
});
