import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import type { CatalogBundle, CatalogChannel, CatalogContent, CatalogPackage, Property } from '@olm/core';
import { hasErrorCode } from '@olm/core';
import {
  createRegistryClient,
  loadCatalogFromRegistry,
  RegistryGrpcErrorCodes,
  startRegistryServer,
} from '../src/grpc/index.js';
import type { RegistryClient, RegistryServer } from '../src/grpc/index.js';

// A hand-built catalog exercising every RPC's quirks.
const etcdCluster = { group: 'etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' };
const etcdBackup = { group: 'etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdBackup' };
const icon = { base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' };

const csvManifest = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'etcdoperator.v0.9.4', annotations: { 'olm.skipRange': '>=0.9.0 <0.9.4' } },
  spec: { version: '0.9.4', install: { strategy: 'deployment', spec: { deployments: [{ name: 'etcd-operator' }] } } },
};
const crdYaml = 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: etcdclusters.etcd.database.coreos.com\nspec:\n  group: etcd.database.coreos.com\n';
const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function bundle(pkg: string, name: string, version: string, image: string, extra: Property[], relatedImages?: CatalogBundle['relatedImages']): CatalogBundle {
  return {
    name,
    package: pkg,
    image,
    version,
    properties: [{ type: 'olm.package', value: { version, packageName: pkg } }, ...extra],
    ...(relatedImages ? { relatedImages } : {}),
  };
}

function pkgOf(fields: Omit<CatalogPackage, 'channels' | 'bundles'>, channels: CatalogChannel[], bundles: CatalogBundle[]): CatalogPackage {
  return {
    ...fields,
    channels: new Map(channels.map((channel) => [channel.name, channel])),
    bundles: new Map(bundles.map((item) => [item.name, item])),
  };
}

const csvMetadata = {
  displayName: 'etcd',
  keywords: ['etcd', 'key value'],
  provider: { name: 'CoreOS, Inc' },
  annotations: { 'z-last': '1', 'a-first': '<b>&</b>' },
  installModes: [{ type: 'AllNamespaces', supported: true }],
  crdDescriptions: { owned: [{ name: 'etcdclusters.etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' }] },
  apiServiceDefinitions: {},
};

export function fixtureCatalog(): CatalogContent {
  const etcd = pkgOf(
    {
      name: 'etcd',
      defaultChannel: 'stable',
      description: 'A key-value store (package description)',
      icon,
      deprecations: [
        { reference: { schema: 'olm.channel', name: 'alpha' }, message: 'alpha is no longer updated' },
        { reference: { schema: 'olm.bundle', name: 'etcdoperator.v0.9.0' }, message: '0.9.0 has known bugs' },
      ],
    },
    [
      {
        name: 'stable',
        package: 'etcd',
        entries: [
          { name: 'etcdoperator.v0.9.2' },
          { name: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.2', skips: ['etcdoperator.v0.9.0'], skipRange: '>=0.9.0 <0.9.4' },
        ],
      },
      {
        name: 'alpha',
        package: 'etcd',
        entries: [
          { name: 'etcdoperator.v0.9.0' },
          { name: 'etcdoperator.v0.9.2', replaces: 'etcdoperator.v0.9.0' },
          { name: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.2', skips: ['etcdoperator.v0.9.3'] },
        ],
      },
    ],
    [
      bundle('etcd', 'etcdoperator.v0.9.0', '0.9.0', 'quay.io/coreos/etcd-operator@sha256:90', [
        { type: 'olm.gvk', value: { version: 'v1beta2', kind: 'EtcdCluster', group: 'etcd.database.coreos.com' } },
        { type: 'olm.csv.metadata', value: csvMetadata },
      ], [{ name: 'etcd', image: 'quay.io/coreos/etcd@sha256:aa' }]),
      bundle('etcd', 'etcdoperator.v0.9.2', '0.9.2', 'quay.io/coreos/etcd-operator@sha256:92', [
        { type: 'olm.gvk', value: etcdCluster },
        { type: 'olm.gvk.required', value: { kind: 'Prometheus', group: 'monitoring.coreos.com', version: 'v1' } },
        { type: 'olm.package.required', value: { versionRange: '>=0.15.0', packageName: 'prometheus' } },
        { type: 'olm.constraint', value: { failureMessage: 'needs cel', cel: { rule: 'true' } } },
        { type: 'custom.nested', value: { b: [{ y: 1, x: 2 }], a: 'text' } },
      ]),
      bundle('etcd', 'etcdoperator.v0.9.4', '0.9.4', '', [
        { type: 'olm.gvk', value: etcdCluster },
        { type: 'olm.gvk', value: etcdBackup },
        { type: 'olm.bundle.object', value: { data: base64(crdYaml) } },
        { type: 'olm.bundle.object', value: { data: base64(JSON.stringify(csvManifest)) } },
      ]),
    ],
  );
  const prometheus = pkgOf(
    { name: 'prometheus', defaultChannel: 'beta', deprecations: [{ reference: { schema: 'olm.package' }, message: 'use another monitoring stack' }] },
    [{ name: 'beta', package: 'prometheus', entries: [{ name: 'prometheusoperator.0.22.2', replaces: 'prometheusoperator.0.15.0' }] }],
    [
      bundle('prometheus', 'prometheusoperator.0.22.2', '0.22.2', 'quay.io/coreos/prometheus-operator@sha256:22', [
        { type: 'olm.gvk', value: { group: 'monitoring.coreos.com', version: 'v1', kind: 'Prometheus' } },
      ]),
    ],
  );
  // Two providers of one API: "aaa" only outside its default channel, so "bbb" is the default provider.
  const shared = { group: 'example.com', version: 'v1', kind: 'Widget' };
  const aaa = pkgOf(
    { name: 'aaa', defaultChannel: 'main' },
    [
      { name: 'main', package: 'aaa', entries: [{ name: 'aaa.v1.0.0' }] },
      { name: 'other', package: 'aaa', entries: [{ name: 'aaa.v2.0.0' }] },
    ],
    [bundle('aaa', 'aaa.v1.0.0', '1.0.0', 'example.com/aaa:1', []), bundle('aaa', 'aaa.v2.0.0', '2.0.0', 'example.com/aaa:2', [{ type: 'olm.gvk', value: shared }])],
  );
  const bbb = pkgOf(
    { name: 'bbb', defaultChannel: 'main' },
    [{ name: 'main', package: 'bbb', entries: [{ name: 'bbb.v1.0.0' }] }],
    [bundle('bbb', 'bbb.v1.0.0', '1.0.0', 'example.com/bbb:1', [{ type: 'olm.gvk', value: shared }])],
  );
  return { packages: new Map([prometheus, etcd, bbb, aaa].map((item) => [item.name, item])) };
}

async function rpcFailure(promise: Promise<unknown>): Promise<{ message: string; code: number }> {
  try {
    await promise;
  } catch (error) {
    expect(hasErrorCode(error, RegistryGrpcErrorCodes.rpc)).toBe(true);
    const details = (error as { details: { grpcMessage: string; grpcCode: number } }).details;
    return { message: details.grpcMessage, code: details.grpcCode };
  }
  throw new Error('expected the call to fail');
}

describe('registry gRPC server and client', () => {
  let server: RegistryServer;
  let client: RegistryClient;

  beforeAll(async () => {
    server = await startRegistryServer({ catalog: fixtureCatalog() });
    client = createRegistryClient(server.address);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('binds a random loopback port and answers health checks with SERVING', async () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.address).toBe(`127.0.0.1:${server.port}`);
    expect(await client.checkHealth()).toBe('SERVING');
    expect(await client.checkHealth('api.Registry')).toBe('SERVING');
    expect(client.state()).toBe('READY');
  });

  it('ListPackages streams every package name, sorted', async () => {
    expect(await client.listPackages()).toEqual(['aaa', 'bbb', 'etcd', 'prometheus']);
  });

  it('GetPackage lists channels by name with their heads and deprecations', async () => {
    expect(await client.getPackage('etcd')).toEqual({
      name: 'etcd',
      defaultChannelName: 'stable',
      channels: [
        { name: 'alpha', csvName: 'etcdoperator.v0.9.4', deprecation: { message: 'alpha is no longer updated' } },
        { name: 'stable', csvName: 'etcdoperator.v0.9.4' },
      ],
    });
    expect((await client.getPackage('prometheus')).deprecation).toEqual({ message: 'use another monitoring stack' });
    expect(await rpcFailure(client.getPackage('nope'))).toEqual({ message: 'package "nope" not found', code: grpc.status.UNKNOWN });
  });

  it('GetBundle returns a trimmed bundle with a CSV synthesised from olm.csv.metadata', async () => {
    const found = await client.getBundle('etcd', 'alpha', 'etcdoperator.v0.9.0');
    expect(found).toMatchObject({
      csvName: 'etcdoperator.v0.9.0',
      packageName: 'etcd',
      channelName: 'alpha',
      bundlePath: 'quay.io/coreos/etcd-operator@sha256:90',
      version: '0.9.0',
      replaces: '',
      skips: [],
      deprecation: { message: '0.9.0 has known bugs' },
      providedApis: [{ ...etcdCluster, plural: '' }],
      properties: [
        { type: 'olm.package', value: '{"packageName":"etcd","version":"0.9.0"}' },
        { type: 'olm.gvk', value: '{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}' },
      ],
    });
    expect(found.object).toEqual([found.csvJson]);
    // Go's json.Marshal escapes HTML characters.
    expect(found.csvJson).toContain('\\u003cb\\u003e\\u0026\\u003c/b\\u003e');
    const csv = JSON.parse(found.csvJson);
    expect(csv).toMatchObject({
      kind: 'ClusterServiceVersion',
      apiVersion: 'operators.coreos.com/v1alpha1',
      metadata: { name: 'etcdoperator.v0.9.0', annotations: { 'a-first': '<b>&</b>', 'z-last': '1' } },
      spec: {
        install: { strategy: 'deployment', spec: { deployments: null } },
        version: '0.9.0',
        displayName: 'etcd',
        description: 'A key-value store (package description)',
        icon: [icon],
        relatedImages: [{ name: 'etcd', image: 'quay.io/coreos/etcd@sha256:aa' }],
        customresourcedefinitions: csvMetadata.crdDescriptions,
        provider: { name: 'CoreOS, Inc' },
      },
    });
    expect(Object.keys(csv.metadata.annotations)).toEqual(['a-first', 'z-last']);
  });

  it('GetBundle decodes olm.bundle.object manifests and hides them from properties', async () => {
    const found = await client.getBundle('etcd', 'stable', 'etcdoperator.v0.9.4');
    expect(found.bundlePath).toBe('');
    expect(found.skipRange).toBe('>=0.9.0 <0.9.4');
    expect(found.replaces).toBe('');
    expect(found.object).toHaveLength(2);
    expect(JSON.parse(found.csvJson)).toEqual(csvManifest);
    // Objects are compact JSON with sorted keys, converted from YAML when needed.
    expect(found.object[0]).toBe(
      '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"etcdclusters.etcd.database.coreos.com"},"spec":{"group":"etcd.database.coreos.com"}}',
    );
    expect(found.properties.map((property) => property.type)).toEqual(['olm.package', 'olm.gvk', 'olm.gvk']);
    expect(found.providedApis.map((gvk) => gvk.kind)).toEqual(['EtcdCluster', 'EtcdBackup']);
  });

  it('GetBundle maps legacy required properties to dependencies and keeps values as sorted compact JSON', async () => {
    const found = await client.getBundle('etcd', 'stable', 'etcdoperator.v0.9.2');
    expect(found.requiredApis).toEqual([{ group: 'monitoring.coreos.com', version: 'v1', kind: 'Prometheus', plural: '' }]);
    expect(found.dependencies).toEqual([
      { type: 'olm.gvk', value: '{"group":"monitoring.coreos.com","kind":"Prometheus","version":"v1"}' },
      { type: 'olm.package', value: '{"packageName":"prometheus","version":">=0.15.0"}' },
    ]);
    expect(found.properties.find((property) => property.type === 'custom.nested')?.value).toBe('{"a":"text","b":[{"x":2,"y":1}]}');
    expect(found.properties.map((property) => property.type)).toContain('olm.constraint');
    expect(found.csvJson).toBe('');
    expect(found.object).toEqual([]);
  });

  it('GetBundle reports a missing package, channel or bundle with upstream messages', async () => {
    expect((await rpcFailure(client.getBundle('nope', 'stable', 'x'))).message).toBe('package "nope" not found');
    expect((await rpcFailure(client.getBundle('etcd', 'beta', 'x'))).message).toBe('package "etcd", channel "beta" not found');
    expect((await rpcFailure(client.getBundle('etcd', 'stable', 'etcdoperator.v0.9.0'))).message).toBe(
      'package "etcd", channel "stable", bundle "etcdoperator.v0.9.0" not found',
    );
  });

  it('GetBundleForChannel returns the trimmed channel head', async () => {
    const head = await client.getBundleForChannel('etcd', 'alpha');
    expect(head.csvName).toBe('etcdoperator.v0.9.4');
    expect(head.replaces).toBe('');
    expect(head.skips).toEqual([]);
    expect((await rpcFailure(client.getBundleForChannel('etcd', 'nope'))).message).toBe('package "etcd", channel "nope" not found');
  });

  it('GetChannelEntriesThatReplace finds replaces and skips; a skip entry reports the bundle\'s own replaces', async () => {
    expect(await client.getChannelEntriesThatReplace('etcdoperator.v0.9.2')).toEqual([
      { packageName: 'etcd', channelName: 'alpha', bundleName: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.2' },
      { packageName: 'etcd', channelName: 'stable', bundleName: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.2' },
    ]);
    expect(await client.getChannelEntriesThatReplace('etcdoperator.v0.9.0')).toEqual([
      { packageName: 'etcd', channelName: 'alpha', bundleName: 'etcdoperator.v0.9.2', replaces: 'etcdoperator.v0.9.0' },
      // Found through `skips`, yet `replaces` is the bundle's own replaces (upstream quirk).
      { packageName: 'etcd', channelName: 'stable', bundleName: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.2' },
    ]);
    expect((await rpcFailure(client.getChannelEntriesThatReplace('nothing'))).message).toBe('no channel entries found that replace nothing');
  });

  it('GetBundleThatReplaces follows replaces or skips (not skipRange) within one channel', async () => {
    expect((await client.getBundleThatReplaces('etcdoperator.v0.9.2', 'etcd', 'stable')).csvName).toBe('etcdoperator.v0.9.4');
    const bySkip = await client.getBundleThatReplaces('etcdoperator.v0.9.0', 'etcd', 'stable');
    expect(bySkip).toMatchObject({ csvName: 'etcdoperator.v0.9.4', replaces: '', skips: [] });
    expect((await rpcFailure(client.getBundleThatReplaces('etcdoperator.v0.9.1', 'etcd', 'stable'))).message).toBe(
      'no entry found for package "etcd", channel "stable"',
    );
    // This one message leaves the package name unquoted upstream.
    expect((await rpcFailure(client.getBundleThatReplaces('x', 'nope', 'stable'))).message).toBe('package nope not found');
    expect((await rpcFailure(client.getBundleThatReplaces('x', 'etcd', 'nope'))).message).toBe('package "etcd", channel "nope" not found');
  });

  it('GetChannelEntriesThatProvide lists every provider, one extra row per skip (even outside the channel)', async () => {
    const entries = await client.getChannelEntriesThatProvide({ ...etcdCluster, plural: 'ignored' });
    expect(entries).toEqual([
      { packageName: 'etcd', channelName: 'alpha', bundleName: 'etcdoperator.v0.9.0', replaces: '' },
      { packageName: 'etcd', channelName: 'alpha', bundleName: 'etcdoperator.v0.9.2', replaces: 'etcdoperator.v0.9.0' },
      { packageName: 'etcd', channelName: 'alpha', bundleName: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.2' },
      { packageName: 'etcd', channelName: 'alpha', bundleName: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.3' },
      { packageName: 'etcd', channelName: 'stable', bundleName: 'etcdoperator.v0.9.2', replaces: '' },
      { packageName: 'etcd', channelName: 'stable', bundleName: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.2' },
      { packageName: 'etcd', channelName: 'stable', bundleName: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.0' },
    ]);
    expect((await rpcFailure(client.getChannelEntriesThatProvide({ group: 'g', version: 'v', kind: 'k' }))).message).toBe(
      'no channel entries found that provide group:"g" version:"v" kind:"k"',
    );
  });

  it('GetLatestChannelEntriesThatProvide looks at channel heads only and keeps skips inside the channel', async () => {
    expect(await client.getLatestChannelEntriesThatProvide(etcdCluster)).toEqual([
      { packageName: 'etcd', channelName: 'alpha', bundleName: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.2' },
      // The stable head also skips 0.9.0, which is not in that channel: no row for it here.
      { packageName: 'etcd', channelName: 'stable', bundleName: 'etcdoperator.v0.9.4', replaces: 'etcdoperator.v0.9.2' },
    ]);
    expect((await rpcFailure(client.getLatestChannelEntriesThatProvide({ group: 'g', version: 'v', kind: 'k' }))).message).toBe(
      'no channel entries found that provide group:"g" version:"v" kind:"k"',
    );
  });

  it('GetDefaultBundleThatProvides picks the first package (by name) whose default channel head provides the API', async () => {
    const found = await client.getDefaultBundleThatProvides({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect(found).toMatchObject({ packageName: 'bbb', channelName: 'main', csvName: 'bbb.v1.0.0', replaces: '', skips: [] });
    const prometheus = { group: 'monitoring.coreos.com', version: 'v1', kind: 'Prometheus' };
    expect((await client.getDefaultBundleThatProvides(prometheus)).csvName).toBe('prometheusoperator.0.22.2');
    expect((await rpcFailure(client.getDefaultBundleThatProvides({ group: 'g', version: 'v', kind: 'k' }))).message).toBe(
      'no channel entries found that provide group:"g" version:"v" kind:"k"',
    );
  });

  it('ListBundles sends one message per channel membership and drops manifests when bundlePath is set', async () => {
    const all = [];
    for await (const item of client.listBundles()) all.push(item);
    expect(all.map((item) => `${item.packageName}/${item.channelName}/${item.csvName}`)).toEqual([
      'aaa/main/aaa.v1.0.0',
      'aaa/other/aaa.v2.0.0',
      'bbb/main/bbb.v1.0.0',
      'etcd/alpha/etcdoperator.v0.9.0',
      'etcd/alpha/etcdoperator.v0.9.2',
      'etcd/alpha/etcdoperator.v0.9.4',
      'etcd/stable/etcdoperator.v0.9.2',
      'etcd/stable/etcdoperator.v0.9.4',
      'prometheus/beta/prometheusoperator.0.22.2',
    ]);
    const byKey = new Map(all.map((item) => [`${item.channelName}/${item.csvName}`, item]));
    expect(byKey.get('alpha/etcdoperator.v0.9.0')).toMatchObject({ csvJson: '', object: [], deprecation: { message: '0.9.0 has known bugs' } });
    // Image-less bundles keep their manifests; replaces and skips are kept per channel.
    expect(byKey.get('stable/etcdoperator.v0.9.4')).toMatchObject({
      replaces: 'etcdoperator.v0.9.2',
      skips: ['etcdoperator.v0.9.0'],
      skipRange: '>=0.9.0 <0.9.4',
    });
    expect(byKey.get('stable/etcdoperator.v0.9.4')?.object).toHaveLength(2);
    expect(byKey.get('alpha/etcdoperator.v0.9.4')).toMatchObject({ skips: ['etcdoperator.v0.9.3'], skipRange: '' });
    expect(byKey.get('beta/prometheusoperator.0.22.2')?.replaces).toBe('prometheusoperator.0.15.0');
  });

  it('loadCatalogFromRegistry rebuilds the model the server was given', async () => {
    const expected = fixtureCatalog();
    const rebuilt = await loadCatalogFromRegistry(client);
    expect([...rebuilt.packages.keys()]).toEqual(['aaa', 'bbb', 'etcd', 'prometheus']);
    for (const [name, pkg] of expected.packages) {
      const got = rebuilt.packages.get(name);
      expect(got?.defaultChannel).toBe(pkg.defaultChannel);
      expect(got?.icon).toEqual(name === 'etcd' ? icon : undefined);
      expect(new Set(got?.deprecations?.map((entry) => JSON.stringify(entry)))).toEqual(new Set(pkg.deprecations?.map((entry) => JSON.stringify(entry))));
      expect([...(got?.channels.keys() ?? [])].sort()).toEqual([...pkg.channels.keys()].sort());
      for (const [channelName, channel] of pkg.channels) {
        const sortByName = <T extends { name: string }>(items: readonly T[]) => [...items].sort((a, b) => a.name.localeCompare(b.name));
        expect(sortByName(got?.channels.get(channelName)?.entries ?? [])).toEqual(sortByName(channel.entries));
      }
      for (const [bundleName, original] of pkg.bundles) {
        const copy = got?.bundles.get(bundleName);
        expect(copy, bundleName).toBeDefined();
        expect(copy?.image).toBe(original.image);
        expect(copy?.version).toBe(original.version);
        const withoutObjects = (properties: readonly Property[]) => properties.filter((property) => property.type !== 'olm.bundle.object');
        // The one loss: metadata without a description comes back with the package's (the CSV's fallback).
        const expectedProperties = withoutObjects(original.properties).map((property) =>
          property.value === csvMetadata ? { ...property, value: { ...csvMetadata, description: pkg.description } } : property,
        );
        expect(withoutObjects(copy?.properties ?? [])).toEqual(expectedProperties);
      }
    }
    // Manifests come back through GetBundle: the CSV metadata and the decoded objects.
    const v094 = rebuilt.packages.get('etcd')?.bundles.get('etcdoperator.v0.9.4');
    const objects = v094?.properties.filter((property) => property.type === 'olm.bundle.object') ?? [];
    expect(objects.map((property) => JSON.parse(Buffer.from((property.value as { data: string }).data, 'base64').toString()).kind)).toEqual([
      'CustomResourceDefinition',
      'ClusterServiceVersion',
    ]);
    expect(rebuilt.packages.get('etcd')?.bundles.get('etcdoperator.v0.9.0')?.relatedImages).toEqual([{ name: 'etcd', image: 'quay.io/coreos/etcd@sha256:aa' }]);
  });

  it('a deadline already past fails with DEADLINE_EXCEEDED', async () => {
    expect((await rpcFailure(client.getPackage('etcd', { deadlineMs: -1 }))).code).toBe(grpc.status.DEADLINE_EXCEEDED);
  });

  it('a malformed request gets an error status and the server keeps serving', async () => {
    const raw = new grpc.Client(server.address, grpc.credentials.createInsecure());
    const status = await new Promise<grpc.ServiceError | null>((resolve) => {
      raw.makeUnaryRequest(
        '/api.Registry/GetPackage',
        (value: Buffer) => value,
        (value: Buffer) => value,
        Buffer.from([0x0a, 0xff, 0xff, 0xff]), // a length-delimited field running past the end
        (error) => resolve(error),
      );
    });
    raw.close();
    expect(status?.code).toBeDefined();
    expect(status?.code).not.toBe(grpc.status.OK);
    expect(await client.listPackages()).toHaveLength(4);
  });
});

describe('registry server lifecycle', () => {
  it('reload swaps the content, also through a loader function', async () => {
    let version = 0;
    const server = await startRegistryServer({
      catalog: async () => {
        version += 1;
        const catalog = fixtureCatalog();
        if (version > 1) (catalog.packages as Map<string, CatalogPackage>).delete('aaa');
        return catalog;
      },
    });
    const client = createRegistryClient(server.address);
    try {
      expect(await client.listPackages()).toContain('aaa');
      await server.reload();
      expect(await client.listPackages()).not.toContain('aaa');
      await server.reload(fixtureCatalog());
      expect(await client.listPackages()).toContain('aaa');
    } finally {
      client.close();
      await server.stop();
    }
  });

  it('answers a bundle whose manifests cannot be decoded with upstream\'s error, and keeps serving', async () => {
    const catalog = fixtureCatalog();
    const bbb = catalog.packages.get('bbb') as CatalogPackage;
    const broken = bbb.bundles.get('bbb.v1.0.0') as CatalogBundle;
    (bbb.bundles as Map<string, CatalogBundle>).set('bbb.v1.0.0', {
      ...broken,
      properties: [...broken.properties, { type: 'olm.bundle.object', value: { data: 'a!==' } }],
    });
    const server = await startRegistryServer({ catalog });
    const client = createRegistryClient(server.address);
    try {
      expect(await rpcFailure(client.getBundle('bbb', 'main', 'bbb.v1.0.0'))).toEqual({
        code: grpc.status.UNKNOWN,
        message: 'read bundle objects: package "bbb", bundle "bbb.v1.0.0": parse property at index 2 as bundle object: illegal base64 data at input byte 1',
      });
      expect((await client.getBundle('aaa', 'main', 'aaa.v1.0.0')).csvName).toBe('aaa.v1.0.0');
    } finally {
      client.close();
      await server.stop();
    }
  });

  it('GetDefaultBundleThatProvides fails when only heads outside default channels provide the API', async () => {
    const catalog = fixtureCatalog();
    // Without "bbb", Widget is provided only by the head of aaa's non-default channel "other".
    (catalog.packages as Map<string, CatalogPackage>).delete('bbb');
    const server = await startRegistryServer({ catalog });
    const client = createRegistryClient(server.address);
    try {
      const widget = { group: 'example.com', version: 'v1', kind: 'Widget' };
      expect(await client.getLatestChannelEntriesThatProvide(widget)).toEqual([
        { packageName: 'aaa', channelName: 'other', bundleName: 'aaa.v2.0.0', replaces: '' },
      ]);
      expect(await rpcFailure(client.getDefaultBundleThatProvides(widget))).toEqual({
        code: grpc.status.UNKNOWN,
        message: 'no entry found that provides group:"example.com" version:"v1" kind:"Widget"',
      });
    } finally {
      client.close();
      await server.stop();
    }
  });

  it('refuses a catalog it cannot serve, naming the package', async () => {
    const catalog = fixtureCatalog();
    const broken = catalog.packages.get('bbb') as CatalogPackage;
    (catalog.packages as Map<string, CatalogPackage>).set('bbb', {
      ...broken,
      channels: new Map([['main', { name: 'main', package: 'bbb', entries: [{ name: 'bbb.v1.0.0', replaces: 'bbb.v1.0.0' }] }]]),
    });
    await expect(startRegistryServer({ catalog })).rejects.toMatchObject({
      code: 'OLM_REGISTRY_INVALID_CATALOG',
      message: 'process package "bbb": channel "main": no channel head found in graph',
    });
  });

  it('reports a busy port with a stable code, and a stopped server as unreachable', async () => {
    const first = await startRegistryServer({ catalog: fixtureCatalog() });
    await expect(startRegistryServer({ catalog: fixtureCatalog(), port: first.port })).rejects.toMatchObject({
      code: 'OLM_REGISTRY_SERVER_START_FAILED',
    });
    const ready = createRegistryClient(first.address);
    expect(ready.state()).toBe('IDLE');
    await ready.waitForReady({ deadlineMs: 10_000 });
    expect(ready.state()).toBe('READY');
    ready.close();
    await first.stop();
    const client = createRegistryClient(first.address);
    try {
      await expect(client.waitForReady({ deadlineMs: 300 })).rejects.toMatchObject({ code: RegistryGrpcErrorCodes.rpc });
      const failure = await rpcFailure(client.listPackages());
      expect(failure.code).toBe(grpc.status.UNAVAILABLE);
      expect(['TRANSIENT_FAILURE', 'IDLE', 'CONNECTING']).toContain(client.state());
    } finally {
      client.close();
    }
    expect(client.state()).toBe('SHUTDOWN');
  });
});
