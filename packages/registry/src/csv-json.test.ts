import type { CatalogBundle } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { synthesizeCsvJson } from './csv-json.js';

const bundle = (properties: CatalogBundle['properties']): CatalogBundle => ({
  name: 'foo.v1.0.0',
  package: 'foo',
  image: 'quay.io/x/foo-bundle:v1.0.0',
  version: '1.0.0',
  properties,
  relatedImages: [{ name: '', image: 'quay.io/x/foo:v1.0.0' }],
});

describe('synthesizeCsvJson', () => {
  it('builds a ClusterServiceVersion from one olm.csv.metadata property and the package icon', () => {
    const csv = JSON.parse(
      synthesizeCsvJson(
        bundle([{ type: 'olm.csv.metadata', value: { displayName: 'Foo', annotations: { a: 'b' }, installModes: [{ type: 'AllNamespaces', supported: true }] } }]),
        { name: 'foo', defaultChannel: 'stable', description: 'Package text', icon: { base64data: 'aGk=', mediatype: 'image/png' }, channels: new Map(), bundles: new Map() },
      ) ?? 'null',
    ) as Record<string, any>;
    expect(csv).toMatchObject({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      metadata: { name: 'foo.v1.0.0', annotations: { a: 'b' } },
      spec: {
        displayName: 'Foo',
        description: 'Package text',
        icon: [{ base64data: 'aGk=', mediatype: 'image/png' }],
        install: { strategy: 'deployment' },
        installModes: [{ type: 'AllNamespaces', supported: true }],
        version: '1.0.0',
        relatedImages: [{ name: '', image: 'quay.io/x/foo:v1.0.0' }],
      },
    });
  });

  it('gives nothing without exactly one olm.csv.metadata', () => {
    expect(synthesizeCsvJson(bundle([]))).toBeUndefined();
    const metadata = { type: 'olm.csv.metadata', value: {} };
    expect(synthesizeCsvJson(bundle([metadata, metadata]))).toBeUndefined();
  });
});
