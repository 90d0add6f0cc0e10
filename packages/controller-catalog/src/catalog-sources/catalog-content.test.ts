import { describe, expect, it } from 'vitest';
import type { CatalogContent } from '@olm/core';
import { forResolution } from './catalog-content.js';

describe('forResolution', () => {
  it('drops olm.csv.metadata and package icons, and keeps everything resolution and installs read', () => {
    const bundleObject = { type: 'olm.bundle.object', value: { data: 'e30=' } };
    const content: CatalogContent = {
      packages: new Map([
        [
          'etcd',
          {
            name: 'etcd',
            defaultChannel: 'alpha',
            icon: { base64data: 'iVBORw0KGgo=', mediatype: 'image/png' },
            deprecations: [{ reference: { schema: 'olm.package' }, message: 'gone soon' }],
            channels: new Map([['alpha', { name: 'alpha', entries: [{ name: 'etcd.v1' }] }]]),
            bundles: new Map([
              [
                'etcd.v1',
                {
                  name: 'etcd.v1',
                  package: 'etcd',
                  image: 'quay.io/etcd/bundle:v1',
                  version: '1.0.0',
                  properties: [
                    { type: 'olm.package', value: { packageName: 'etcd', version: '1.0.0' } },
                    { type: 'olm.csv.metadata', value: { description: 'x'.repeat(10_000) } },
                    bundleObject,
                    { type: 'olm.gvk', value: { group: 'etcd.database.coreos.com', kind: 'EtcdCluster', version: 'v1beta2' } },
                  ],
                },
              ],
            ]),
          },
        ],
      ]),
    } as unknown as CatalogContent;
    const slim = forResolution(content);
    const pkg = slim.packages.get('etcd')!;
    expect(pkg.icon).toBeUndefined();
    expect(pkg.deprecations).toEqual([{ reference: { schema: 'olm.package' }, message: 'gone soon' }]);
    expect(pkg.channels).toBe(content.packages.get('etcd')!.channels);
    expect(pkg.bundles.get('etcd.v1')!.properties.map((property) => property.type)).toEqual(['olm.package', 'olm.bundle.object', 'olm.gvk']);
    expect(pkg.bundles.get('etcd.v1')!.image).toBe('quay.io/etcd/bundle:v1');
    // the loaded content is not changed
    expect(content.packages.get('etcd')!.bundles.get('etcd.v1')!.properties).toHaveLength(4);
  });
});
