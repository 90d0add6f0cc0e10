import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogConnection, CatalogContent } from '@olm/core';
import { boot, catalogSourceTypes, hasErrorCode } from '@olm/core';
import { registryPlugin } from '../src/plugin.js';
import { stringify } from 'yaml';
import { startRegistryServer } from '../src/grpc/index.js';
import type { RegistryServer } from '../src/grpc/index.js';
import {
  catalogFromConfigMapData,
  CatalogSourceErrorCodes,
  createCatalogSourceTypes,
  createConfigMapSourceType,
  createFbcDirectorySourceType,
  createGrpcSourceType,
} from '../src/sources/index.js';

// An upstream-style ConfigMap catalog: CRDs, CSVs and package manifests as YAML lists.
const crds = [
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'etcdclusters.etcd.database.coreos.com' },
    spec: { group: 'etcd.database.coreos.com', names: { kind: 'EtcdCluster', plural: 'etcdclusters' }, versions: [{ name: 'v1beta2', served: true, storage: true }] },
  },
  {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'etcdbackups.etcd.database.coreos.com' },
    spec: { group: 'etcd.database.coreos.com', names: { kind: 'EtcdBackup', plural: 'etcdbackups' }, version: 'v1beta2' },
  },
];
const csv = (name: string, version: string, extra: Record<string, unknown> = {}, annotations: Record<string, string> = {}) => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name, annotations },
  spec: {
    version,
    displayName: 'etcd',
    install: { strategy: 'deployment', spec: { deployments: [] } },
    customresourcedefinitions: {
      owned: [{ name: 'etcdclusters.etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' }],
    },
    ...extra,
  },
});
const csvs = [
  csv('etcdoperator.v0.9.0', '0.9.0'),
  csv('etcdoperator.v0.9.2', '0.9.2', {
    replaces: 'etcdoperator.v0.9.0',
    customresourcedefinitions: {
      owned: [
        { name: 'etcdclusters.etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' },
        { name: 'etcdbackups.etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdBackup' },
      ],
      required: [{ name: 'prometheuses.monitoring.coreos.com', version: 'v1', kind: 'Prometheus' }],
    },
    apiservicedefinitions: { owned: [{ group: 'metrics.example.com', version: 'v1', kind: 'Metric' }] },
    skips: ['etcdoperator.v0.9.1'],
    relatedImages: [{ name: 'etcd', image: 'quay.io/etcd:1' }],
    icon: [{ base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' }],
    description: 'etcd operator',
  }, {
    'olm.skipRange': '>=0.9.0 <0.9.2',
    'olm.properties': '[{"type":"olm.maxOpenShiftVersion","value":"4.19"}]',
  }),
  csv('unreferenced.v1.0.0', '1.0.0'),
];
const packages = [{ packageName: 'etcd', channels: [{ name: 'alpha', currentCSV: 'etcdoperator.v0.9.2' }, { name: 'old', currentCSV: 'etcdoperator.v0.9.0' }], defaultChannel: 'alpha' }];
const configMapData = {
  customResourceDefinitions: stringify(crds),
  clusterServiceVersions: stringify(csvs),
  packages: stringify(packages),
};

const decodeObjects = (content: CatalogContent, pkg: string, name: string): unknown[] =>
  (content.packages.get(pkg)?.bundles.get(name)?.properties ?? [])
    .filter((property) => property.type === 'olm.bundle.object')
    .map((property) => JSON.parse(Buffer.from((property.value as { data: string }).data, 'base64').toString('utf8')));

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('configmap catalog model', () => {
  it('walks channels from currentCSV along replaces and derives bundle properties from each CSV', () => {
    const content = catalogFromConfigMapData(configMapData);
    const etcd = content.packages.get('etcd');
    expect(etcd?.defaultChannel).toBe('alpha');
    expect(etcd?.description).toBe('etcd operator');
    expect(etcd?.icon).toEqual({ base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' });
    expect(etcd?.channels.get('alpha')?.entries).toEqual([
      { name: 'etcdoperator.v0.9.2', replaces: 'etcdoperator.v0.9.0', skips: ['etcdoperator.v0.9.1'], skipRange: '>=0.9.0 <0.9.2' },
      { name: 'etcdoperator.v0.9.0' },
    ]);
    expect(etcd?.channels.get('old')?.entries).toEqual([{ name: 'etcdoperator.v0.9.0' }]);
    expect([...(etcd?.bundles.keys() ?? [])].sort()).toEqual(['etcdoperator.v0.9.0', 'etcdoperator.v0.9.2']);
    const bundle = etcd?.bundles.get('etcdoperator.v0.9.2');
    expect(bundle).toMatchObject({ package: 'etcd', image: '', version: '0.9.2', relatedImages: [{ name: 'etcd', image: 'quay.io/etcd:1' }] });
    expect(bundle?.properties.filter((property) => property.type !== 'olm.bundle.object')).toEqual([
      { type: 'olm.package', value: { packageName: 'etcd', version: '0.9.2' } },
      { type: 'olm.gvk', value: { group: 'etcd.database.coreos.com', kind: 'EtcdCluster', version: 'v1beta2' } },
      { type: 'olm.gvk', value: { group: 'etcd.database.coreos.com', kind: 'EtcdBackup', version: 'v1beta2' } },
      { type: 'olm.gvk', value: { group: 'metrics.example.com', kind: 'Metric', version: 'v1' } },
      { type: 'olm.gvk.required', value: { group: 'monitoring.coreos.com', kind: 'Prometheus', version: 'v1' } },
      { type: 'olm.maxOpenShiftVersion', value: '4.19' },
    ]);
    // The CSV and the CRDs it owns (a v1beta1 CRD's single `version` included) travel as bundle objects.
    expect(decodeObjects(content, 'etcd', 'etcdoperator.v0.9.2').map((object) => (object as { metadata: { name: string } }).metadata.name)).toEqual([
      'etcdoperator.v0.9.2',
      'etcdclusters.etcd.database.coreos.com',
      'etcdbackups.etcd.database.coreos.com',
    ]);
  });

  it('rejects a ConfigMap missing a key or naming an absent currentCSV, with upstream wording', () => {
    const withoutCrds = { clusterServiceVersions: configMapData.clusterServiceVersions, packages: configMapData.packages };
    expect(() => catalogFromConfigMapData(withoutCrds, 'ConfigMap olm/etcd')).toThrow(
      "ConfigMap olm/etcd: couldn't find expected key customResourceDefinitions in configmap",
    );
    const dangling = { ...configMapData, packages: stringify([{ packageName: 'etcd', channels: [{ name: 'alpha', currentCSV: 'etcdoperator.v9' }] }]) };
    try {
      catalogFromConfigMapData(dangling);
      expect.unreachable();
    } catch (error) {
      expect(hasErrorCode(error, CatalogSourceErrorCodes.configMapInvalid)).toBe(true);
      expect((error as Error).message).toContain('currentCSV "etcdoperator.v9" is not in clusterServiceVersions');
    }
    expect(() => catalogFromConfigMapData({ ...configMapData, customResourceDefinitions: stringify([crds[0], crds[0]]) })).toThrow(
      "can't add the same CRD twice in one configmap",
    );
  });

  it('refuses a ConfigMap whose YAML aliases expand past the limits (billion laughs)', () => {
    const levels = 'bcdefghi'.split('').map((name, index) => `  ${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[index]}`).join(', ')}]`);
    const laughs = ['- metadata: {name: laughs}', '  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]', ...levels].join('\n');
    expect(() => catalogFromConfigMapData({ ...configMapData, customResourceDefinitions: laughs }, 'ConfigMap olm/laughs')).toThrow(
      expect.objectContaining({
        code: CatalogSourceErrorCodes.configMapInvalid,
        message: expect.stringMatching(/^ConfigMap olm\/laughs: error parsing customResourceDefinitions: document contains excessive aliasing: .*maxExpandedBytes/),
      }),
    );
  });
});

describe('catalog source types', () => {
  let server: RegistryServer;
  const fetched: string[] = [];
  const fetchConfigMap = async ({ namespace, name }: { namespace: string; name: string }) => {
    fetched.push(`${namespace}/${name}`);
    return configMapData;
  };

  beforeAll(async () => {
    server = await startRegistryServer({ catalog: catalogFromConfigMapData(configMapData) });
  });
  afterAll(async () => {
    await server.stop();
  });

  const request = (spec: Record<string, unknown>) => ({ name: 'etcd-catalog', namespace: 'olm', spec });

  it('configmap, grpc and fbc-directory sources yield the same model', async () => {
    const types = createCatalogSourceTypes({ fetchConfigMap, loadDirectory: async () => catalogFromConfigMapData(configMapData) });
    expect(types.map((type) => type.sourceType)).toEqual(['grpc', 'configmap', 'internal', 'fbc-directory']);
    const byType = new Map(types.map((type) => [type.sourceType, type]));
    const connections: CatalogConnection[] = [
      await byType.get('configmap')!.open(request({ sourceType: 'configmap', configMap: 'etcd-manifests' })),
      await byType.get('grpc')!.open(request({ sourceType: 'grpc', address: server.address })),
      await byType.get('fbc-directory')!.open(request({ sourceType: 'fbc-directory', directory: '/catalogs/etcd' })),
    ];
    try {
      expect(connections.map((connection) => connection.state())).toEqual(['IDLE', 'IDLE', 'IDLE']);
      const [fromConfigMap, fromGrpc, fromDirectory] = await Promise.all(connections.map((connection) => connection.load()));
      expect(fetched).toEqual(['olm/etcd-manifests']);
      expect(connections.map((connection) => connection.state())).toEqual(['READY', 'READY', 'READY']);
      expect(connections[1]?.address).toBe(server.address);
      for (const content of [fromGrpc, fromDirectory]) {
        const expected = fromConfigMap?.packages.get('etcd');
        const got = content?.packages.get('etcd');
        expect(got?.defaultChannel).toBe(expected?.defaultChannel);
        for (const [name, channel] of expected?.channels ?? []) {
          const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
          expect([...(got?.channels.get(name)?.entries ?? [])].sort(byName)).toEqual([...channel.entries].sort(byName));
        }
        for (const [name, bundle] of expected?.bundles ?? []) {
          const copy = got?.bundles.get(name);
          const visible = (properties: typeof bundle.properties) => properties.filter((property) => property.type !== 'olm.bundle.object');
          expect(visible(copy?.properties ?? [])).toEqual(visible(bundle.properties));
          expect(copy?.relatedImages).toEqual(bundle.relatedImages);
          // Manifests are re-encoded on the wire (sorted keys), so compare them as objects.
          expect(decodeObjects(content as CatalogContent, 'etcd', name)).toEqual(decodeObjects(fromConfigMap as CatalogContent, 'etcd', name));
        }
      }
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
    expect(connections.map((connection) => connection.state())).toEqual(['SHUTDOWN', 'SHUTDOWN', 'SHUTDOWN']);
  });

  it('rejects specs that lack what the source type needs', async () => {
    const grpcType = createGrpcSourceType();
    await expect(grpcType.open(request({ image: 'quay.io/catalog:latest' }))).rejects.toMatchObject({
      code: CatalogSourceErrorCodes.specInvalid,
      message: expect.stringContaining('sourceType grpc needs spec.address'),
    });
    await expect(createConfigMapSourceType({ fetchConfigMap }).open(request({}))).rejects.toMatchObject({ code: CatalogSourceErrorCodes.specInvalid });
    await expect(createConfigMapSourceType().open(request({ configMap: 'x' }))).rejects.toMatchObject({ code: CatalogSourceErrorCodes.unavailable });
    const directoryType = createFbcDirectorySourceType({ loadDirectory: async () => ({ packages: new Map() }) });
    await expect(directoryType.open(request({}))).rejects.toMatchObject({ code: CatalogSourceErrorCodes.specInvalid });
  });

  it('grpc connections probe the registry\'s health service: READY while it serves, TRANSIENT_FAILURE once it is gone', async () => {
    const own = await startRegistryServer({ catalog: catalogFromConfigMapData(configMapData) });
    const connection = await createGrpcSourceType().open(request({ sourceType: 'grpc', address: own.address }));
    try {
      expect(await connection.probe!({ timeoutMs: 2_000 })).toBe('READY');
      await own.stop();
      expect(await connection.probe!({ timeoutMs: 500 })).toBe('TRANSIENT_FAILURE');
      // Sources that cannot be asked leave it out; their health is the state of their last load.
      const configMap = await createConfigMapSourceType({ fetchConfigMap }).open(request({ configMap: 'etcd-manifests' }));
      expect(configMap.probe).toBeUndefined();
      await configMap.close();
    } finally {
      await connection.close();
      await own.stop().catch(() => undefined);
    }
  });

  it('grpc connections report each state change as it happens, and digest the packages and channel heads served', async () => {
    const own = await startRegistryServer({ catalog: catalogFromConfigMapData(configMapData) });
    const connection = await createGrpcSourceType({ client: { maxReconnectBackoffMs: 200 } }).open(request({ sourceType: 'grpc', address: own.address }));
    const states: string[] = [];
    const unwatch = connection.watchState!((state) => states.push(state));
    // a listener that throws harms neither the channel nor the other listeners
    connection.watchState!(() => {
      throw new Error('a broken listener');
    });
    let restarted: RegistryServer | undefined;
    try {
      const first = await connection.contentDigest!({ timeoutMs: 5_000 });
      expect(first).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(states).toEqual(['CONNECTING', 'READY']);
      // the same content again: the same digest; a channel with another head: another digest
      await own.reload(catalogFromConfigMapData(configMapData));
      expect(await connection.contentDigest!({ timeoutMs: 5_000 })).toBe(first);
      const olderHead = [{ ...packages[0]!, channels: [{ name: 'alpha', currentCSV: 'etcdoperator.v0.9.0' }, packages[0]!.channels[1]!] }];
      await own.reload(catalogFromConfigMapData({ ...configMapData, packages: stringify(olderHead) }));
      expect(await connection.contentDigest!({ timeoutMs: 5_000 })).not.toBe(first);

      // a restart on the same port: the channel leaves READY at once, and is READY again once asked
      await own.stop();
      await until(() => states.at(-1) === 'IDLE');
      restarted = await startRegistryServer({ catalog: catalogFromConfigMapData(configMapData), port: own.port });
      expect(await connection.probe!({ timeoutMs: 5_000 })).toBe('READY');
      expect(states).toEqual(['CONNECTING', 'READY', 'IDLE', 'CONNECTING', 'READY']);
      expect(await connection.contentDigest!({ timeoutMs: 5_000 })).toBe(first);

      unwatch();
      await restarted.stop();
      await expect(connection.contentDigest!({ timeoutMs: 500 })).rejects.toMatchObject({ code: 'OLM_REGISTRY_RPC_FAILED' });
      expect(states).toHaveLength(5);
    } finally {
      await connection.close();
      await restarted?.stop();
    }
  });

  it('a failed load leaves the connection in TRANSIENT_FAILURE', async () => {
    const connection = await createConfigMapSourceType({ fetchConfigMap: async () => ({}) }).open(request({ configMap: 'empty' }));
    await expect(connection.load()).rejects.toMatchObject({ code: CatalogSourceErrorCodes.configMapInvalid });
    expect(connection.state()).toBe('TRANSIENT_FAILURE');
    await connection.close();
  });
});

describe('registry plugin catalog source types', () => {
  it('contributes grpc, configmap, internal and fbc-directory; fbc-directory reads a directory with loadCatalog', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'olm-fbc-source-'));
    writeFileSync(
      join(dir, 'catalog.json'),
      [
        { schema: 'olm.package', name: 'etcd', defaultChannel: 'stable' },
        { schema: 'olm.channel', name: 'stable', package: 'etcd', entries: [{ name: 'etcd.v1.0.0' }] },
        { schema: 'olm.bundle', name: 'etcd.v1.0.0', package: 'etcd', image: 'quay.io/etcd:1', properties: [{ type: 'olm.package', value: { packageName: 'etcd', version: '1.0.0' } }] },
      ]
        .map((blob) => JSON.stringify(blob))
        .join('\n'),
    );
    const kernel = await boot({ plugins: [registryPlugin] });
    try {
      const types = kernel.get(catalogSourceTypes);
      expect([...types.keys()].sort()).toEqual(['configmap', 'fbc-directory', 'grpc', 'internal']);
      const connection = await types.get('fbc-directory')!.open({ name: 'local', namespace: 'olm', spec: { sourceType: 'fbc-directory', directory: dir } });
      const content = await connection.load();
      expect(content.packages.get('etcd')?.bundles.get('etcd.v1.0.0')?.version).toBe('1.0.0');
      expect(connection.state()).toBe('READY');
      await connection.close();
      const broken = await types.get('fbc-directory')!.open({ name: 'local', namespace: 'olm', spec: { address: join(dir, 'missing') } });
      await expect(broken.load()).rejects.toMatchObject({ code: expect.stringMatching(/^OLM_REGISTRY_/) });
      expect(broken.state()).toBe('TRANSIENT_FAILURE');
    } finally {
      await kernel.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
