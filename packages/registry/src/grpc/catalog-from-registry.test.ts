import { describe, expect, it } from 'vitest';
import type { ApiBundle } from './api-types.js';
import { apiBundleToCatalogBundle } from './catalog-from-registry.js';

const base: ApiBundle = {
  csvName: 'etcdoperator.v0.9.2',
  packageName: 'etcd',
  channelName: 'alpha',
  csvJson: '',
  object: [],
  bundlePath: 'quay.io/coreos/etcd-operator@sha256:92',
  providedApis: [{ group: 'etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster', plural: 'etcdclusters' }],
  requiredApis: [{ group: 'monitoring.coreos.com', version: 'v1', kind: 'Prometheus', plural: 'prometheuses' }],
  version: '0.9.2',
  skipRange: '',
  dependencies: [
    { type: 'olm.gvk', value: '{"group":"monitoring.coreos.com","kind":"Prometheus","version":"v1"}' },
    { type: 'olm.package', value: '{"packageName":"prometheus","version":">=0.15.0"}' },
    { type: 'olm.label', value: '{"label":"tier=gold"}' },
    { type: 'olm.constraint', value: '{"cel":{"rule":"true"},"failureMessage":"never"}' },
  ],
  properties: [],
  replaces: '',
  skips: [],
};

describe('apiBundleToCatalogBundle', () => {
  it('rebuilds the properties of a sqlite-era bundle (none sent) from its typed fields and dependencies', () => {
    const { bundle } = apiBundleToCatalogBundle(base);
    expect(bundle).toMatchObject({ name: 'etcdoperator.v0.9.2', package: 'etcd', image: 'quay.io/coreos/etcd-operator@sha256:92', version: '0.9.2' });
    expect(bundle.properties).toEqual([
      { type: 'olm.package', value: { packageName: 'etcd', version: '0.9.2' } },
      { type: 'olm.gvk', value: { group: 'etcd.database.coreos.com', kind: 'EtcdCluster', version: 'v1beta2' } },
      { type: 'olm.gvk.required', value: { group: 'monitoring.coreos.com', kind: 'Prometheus', version: 'v1' } },
      { type: 'olm.package.required', value: { packageName: 'prometheus', versionRange: '>=0.15.0' } },
      { type: 'olm.label.required', value: { label: 'tier=gold' } },
      { type: 'olm.constraint', value: { cel: { rule: 'true' }, failureMessage: 'never' } },
    ]);
  });

  it('adds nothing when the server sent the properties already (an FBC server)', () => {
    const properties = [
      { type: 'olm.package', value: '{"packageName":"etcd","version":"0.9.2"}' },
      { type: 'olm.gvk', value: '{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}' },
      { type: 'olm.gvk.required', value: '{"group":"monitoring.coreos.com","kind":"Prometheus","version":"v1"}' },
      { type: 'olm.package.required', value: '{"packageName":"prometheus","versionRange":">=0.15.0"}' },
      { type: 'olm.constraint', value: '{"cel":{"rule":"true"},"failureMessage":"never"}' },
    ];
    const { bundle } = apiBundleToCatalogBundle({
      ...base,
      properties,
      dependencies: base.dependencies.filter((dependency) => dependency.type !== 'olm.label'),
    });
    expect(bundle.properties).toEqual(properties.map((property) => ({ type: property.type, value: JSON.parse(property.value) as unknown })));
  });

  it('names the bundle when the server sends text that is not JSON', () => {
    expect(() => apiBundleToCatalogBundle({ ...base, properties: [{ type: 'olm.gvk', value: '{oops' }] })).toThrow(
      /^bundle "etcdoperator\.v0\.9\.2" of package "etcd": olm\.gvk is not JSON: /,
    );
  });
});
