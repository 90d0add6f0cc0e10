import { describe, expect, it } from 'vitest';
import { parseCsv, relatedImagesOf } from './csv-description.js';

const fullCsv = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: {
    name: 'etcdoperator.v0.9.4',
    labels: { 'operatorframework.io/arch.arm64': 'supported', weird: 3 },
    annotations: { capabilities: 'Full Lifecycle', 'alm-examples': '[]' },
  },
  spec: {
    displayName: 'etcd',
    version: '0.9.4',
    description: 'A key value store',
    maturity: 'alpha',
    minKubeVersion: '1.25.0',
    provider: { name: 'CoreOS, Inc', url: 'https://coreos.com' },
    keywords: ['etcd', 7, 'key value'],
    links: [{ name: 'Blog', url: 'https://coreos.com/etcd' }],
    maintainers: [{ name: 'etcd Community', email: 'etcd-dev@googlegroups.com' }],
    icon: [{ base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' }],
    installModes: [
      { type: 'OwnNamespace', supported: true },
      { type: 'AllNamespaces', supported: false },
    ],
    nativeAPIs: [{ group: '', version: 'v1', kind: 'Pod' }],
    customresourcedefinitions: {
      owned: [
        {
          name: 'etcdclusters.etcd.database.coreos.com',
          version: 'v1beta2',
          kind: 'EtcdCluster',
          displayName: 'etcd Cluster',
          description: 'Represents a cluster of etcd nodes.',
          specDescriptors: [{ path: 'size', displayName: 'Size' }],
          resources: [{ kind: 'Pod', version: 'v1', name: '' }],
        },
      ],
      required: [{ name: 'backups.example.com', version: 'v1', kind: 'Backup' }],
    },
    apiservicedefinitions: {
      owned: [{ name: 'things', group: 'things.example.com', version: 'v1', kind: 'Thing', deploymentName: 'thing-server', containerPort: 5443, displayName: 'Thing' }],
    },
    relatedImages: [{ name: 'operand', image: 'quay.io/coreos/etcd:v3.5' }, { name: 'operator', image: 'quay.io/coreos/etcd-operator:v0.9.4' }, { name: 'empty', image: '' }],
    install: {
      strategy: 'deployment',
      spec: {
        deployments: [
          {
            name: 'etcd-operator',
            spec: {
              template: {
                spec: {
                  containers: [{ name: 'operator', image: 'quay.io/coreos/etcd-operator:v0.9.4' }],
                  initContainers: [{ name: 'init', image: 'busybox:1.36' }],
                },
              },
            },
          },
        ],
      },
    },
  },
};

describe('parseCsv', () => {
  it('describes a channel head as upstream does: trimmed API descriptions, nativeApis, related images', () => {
    const parsed = parseCsv(JSON.stringify(fullCsv));
    expect(parsed.name).toBe('etcdoperator.v0.9.4');
    expect(parsed.labels).toEqual({ 'operatorframework.io/arch.arm64': 'supported' });
    expect(parsed.provider).toEqual({ name: 'CoreOS, Inc', url: 'https://coreos.com' });
    expect(parsed.description).toEqual({
      displayName: 'etcd',
      icon: [{ base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' }],
      version: '0.9.4',
      provider: { name: 'CoreOS, Inc', url: 'https://coreos.com' },
      annotations: { capabilities: 'Full Lifecycle', 'alm-examples': '[]' },
      keywords: ['etcd', 'key value'],
      links: [{ name: 'Blog', url: 'https://coreos.com/etcd' }],
      maintainers: [{ name: 'etcd Community', email: 'etcd-dev@googlegroups.com' }],
      maturity: 'alpha',
      description: 'A key value store',
      installModes: [
        { type: 'OwnNamespace', supported: true },
        { type: 'AllNamespaces', supported: false },
      ],
      customresourcedefinitions: {
        owned: [{ name: 'etcdclusters.etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster', displayName: 'etcd Cluster', description: 'Represents a cluster of etcd nodes.' }],
        required: [{ name: 'backups.example.com', version: 'v1', kind: 'Backup' }],
      },
      apiservicedefinitions: { owned: [{ name: 'things', group: 'things.example.com', version: 'v1', kind: 'Thing', displayName: 'Thing' }] },
      nativeApis: [{ group: '', version: 'v1', kind: 'Pod' }],
      minKubeVersion: '1.25.0',
      relatedImages: ['busybox:1.36', 'quay.io/coreos/etcd-operator:v0.9.4', 'quay.io/coreos/etcd:v3.5'],
    });
  });

  it('leaves out what the CSV does not say, keeping the provider and API definition objects', () => {
    const parsed = parseCsv(JSON.stringify({ metadata: { name: 'bare.v1' }, spec: { install: { strategy: 'webhook-only' } } }));
    expect(parsed.description).toEqual({ provider: {}, customresourcedefinitions: {}, apiservicedefinitions: {} });
    expect(JSON.parse(JSON.stringify(parsed.description))).toEqual({ provider: {}, customresourcedefinitions: {}, apiservicedefinitions: {} });
  });

  it('refuses text that is not a JSON object, as upstream\'s unmarshal does', () => {
    expect(() => parseCsv('')).toThrow(/the CSV is not valid JSON/);
    expect(() => parseCsv('{"metadata":')).toThrow(/the CSV is not valid JSON/);
    expect(() => parseCsv('[1,2]')).toThrow('the CSV is not a JSON object');
    expect(() => parseCsv('null')).toThrow('the CSV is not a JSON object');
  });
});

describe('relatedImagesOf', () => {
  it('takes containers only from the deployment strategy, plus spec.relatedImages, deduplicated', () => {
    expect(relatedImagesOf({ install: { strategy: 'other', spec: { deployments: [{ spec: { template: { spec: { containers: [{ image: 'a' }] } } } }] } }, relatedImages: [{ image: 'b' }, { image: 'b' }] })).toEqual(['b']);
    expect(relatedImagesOf({})).toEqual([]);
  });
});
