import type { ApiBundle, ApiPackage } from '@olm/registry';
import { describe, expect, it } from 'vitest';
import { buildPackageManifest, withDefaultOsArchLabels, type CatalogSourceSummary } from './build-package-manifest.js';

const source: CatalogSourceSummary = {
  namespace: 'olm',
  name: 'community',
  labels: { tier: 'community', catalog: 'overwritten' },
  creationTimestamp: '2024-05-06T07:08:09Z',
  displayName: 'Community Operators',
  publisher: 'Community',
};

function head(csvName: string, provider: string, extra: { labels?: Record<string, string>; version?: string } = {}): ApiBundle {
  const csv = { metadata: { name: csvName, ...(extra.labels ? { labels: extra.labels } : {}) }, spec: { version: extra.version ?? '1.0.0', provider: { name: provider, url: `https://${provider}.example.com` } } };
  return {
    csvName,
    packageName: 'etcd',
    channelName: '',
    csvJson: JSON.stringify(csv),
    object: [],
    bundlePath: '',
    providedApis: [],
    requiredApis: [],
    version: extra.version ?? '1.0.0',
    skipRange: '',
    dependencies: [],
    properties: [],
    replaces: '',
    skips: [],
  };
}

const pkg: ApiPackage = {
  name: 'etcd',
  defaultChannelName: 'stable',
  channels: [
    { name: 'alpha', csvName: 'etcd.v2.0.0-alpha' },
    { name: 'stable', csvName: 'etcd.v1.0.0', deprecation: { message: 'use fast' } },
  ],
  deprecation: { message: 'etcd is retired' },
};

describe('buildPackageManifest', () => {
  it('takes the provider and the CSV labels from the default channel head, and the metadata from the CatalogSource', () => {
    const { manifest, problems } = buildPackageManifest(source, {
      package: pkg,
      heads: new Map([
        ['alpha', head('etcd.v2.0.0-alpha', 'alpha-corp', { labels: { 'operatorframework.io/os.windows': 'supported' }, version: '2.0.0-alpha' })],
        ['stable', head('etcd.v1.0.0', 'stable-corp', { labels: { 'operatorframework.io/arch.s390x': 'supported', tier: 'from-csv' } })],
      ]),
      bundles: new Map([
        [
          'stable',
          [
            { csvName: 'etcd.v0.9.0', version: '0.9.0' },
            { csvName: 'etcd.v1.0.0', version: '1.0.0' },
            { csvName: 'etcd.v0.10.0', version: '0.10.0', deprecation: { message: 'broken' } },
            { csvName: 'etcd.vnext', version: 'not-a-version' },
          ],
        ],
      ]),
    });
    expect(problems).toEqual([]);
    expect(manifest?.metadata).toEqual({
      name: 'etcd',
      namespace: 'olm',
      creationTimestamp: '2024-05-06T07:08:09Z',
      labels: {
        tier: 'from-csv',
        catalog: 'community',
        'catalog-namespace': 'olm',
        provider: 'stable-corp',
        'provider-url': 'https://stable-corp.example.com',
        'operatorframework.io/arch.s390x': 'supported',
        'operatorframework.io/os.linux': 'supported',
      },
    });
    expect(manifest?.status).toMatchObject({
      catalogSource: 'community',
      catalogSourceDisplayName: 'Community Operators',
      catalogSourcePublisher: 'Community',
      catalogSourceNamespace: 'olm',
      packageName: 'etcd',
      defaultChannel: 'stable',
      provider: { name: 'stable-corp', url: 'https://stable-corp.example.com' },
      deprecation: { message: 'etcd is retired' },
    });
    expect(manifest?.status.channels.map((channel) => [channel.name, channel.currentCSV, channel.deprecation])).toEqual([
      ['alpha', 'etcd.v2.0.0-alpha', undefined],
      ['stable', 'etcd.v1.0.0', { message: 'use fast' }],
    ]);
    expect(manifest?.status.channels[1]?.entries).toEqual([
      { name: 'etcd.v1.0.0', version: '1.0.0' },
      { name: 'etcd.v0.10.0', version: '0.10.0', deprecation: { message: 'broken' } },
      { name: 'etcd.v0.9.0', version: '0.9.0' },
      { name: 'etcd.vnext', version: 'not-a-version' },
    ]);
    expect(manifest?.status.channels[0]?.entries).toEqual([]);
  });

  it('leaves out a channel whose head cannot be read, and a lost default channel gives way to the first remaining', () => {
    const { manifest, problems } = buildPackageManifest(source, {
      package: pkg,
      heads: new Map<string, ApiBundle | Error>([
        ['alpha', head('etcd.v2.0.0-alpha', 'alpha-corp')],
        ['stable', new Error('bundle not found')],
      ]),
      bundles: new Map(),
    });
    expect(problems).toEqual(['package etcd, channel stable: cannot read the channel head: bundle not found']);
    expect(manifest?.status.defaultChannel).toBe('alpha');
    expect(manifest?.status.channels.map((channel) => channel.name)).toEqual(['alpha']);
    expect(manifest?.status.provider).toEqual({ name: 'alpha-corp', url: 'https://alpha-corp.example.com' });
  });

  it('gives no manifest when no channel head is a CSV', () => {
    const broken = { ...head('etcd.v1.0.0', 'x'), csvJson: '{"metadata": ' };
    const { manifest, problems } = buildPackageManifest(source, { package: { ...pkg, channels: [pkg.channels[1]!] }, heads: new Map([['stable', broken]]), bundles: new Map() });
    expect(manifest).toBeUndefined();
    expect(problems[0]).toMatch(/^package etcd, channel stable: head etcd\.v1\.0\.0: the CSV is not valid JSON/);
    expect(problems[1]).toBe('package etcd: left out, no channel head could be read');
  });
});

describe('withDefaultOsArchLabels', () => {
  it('adds linux and amd64 only where no os or arch label is given', () => {
    expect(withDefaultOsArchLabels({})).toEqual({ 'operatorframework.io/os.linux': 'supported', 'operatorframework.io/arch.amd64': 'supported' });
    expect(withDefaultOsArchLabels({ 'operatorframework.io/os.zos': 'supported', 'operatorframework.io/arch.arm64': 'supported' })).toEqual({
      'operatorframework.io/os.zos': 'supported',
      'operatorframework.io/arch.arm64': 'supported',
    });
  });
});
