import { describe, expect, it } from 'vitest';
import { manifestTable, wantsTable } from './table.js';
import type { PackageManifest } from './package-manifest.js';

const manifest = {
  apiVersion: 'packages.operators.coreos.com/v1',
  kind: 'PackageManifest',
  metadata: { name: 'etcd', namespace: 'team', labels: {}, creationTimestamp: '2024-01-01T00:00:00Z', resourceVersion: '9' },
  spec: {},
  status: { catalogSource: 'community', catalogSourceDisplayName: 'Community Operators', catalogSourcePublisher: '', catalogSourceNamespace: 'olm', provider: {}, packageName: 'etcd', channels: [], defaultChannel: '' },
} satisfies PackageManifest;

describe('manifestTable', () => {
  it('has upstream\'s columns and the ages kubectl prints', () => {
    const now = Date.parse('2024-01-03T05:00:00Z');
    const table = manifestTable([manifest], { now, resourceVersion: '12' });
    expect(table['metadata']).toEqual({ resourceVersion: '12' });
    expect((table['columnDefinitions'] as { name: string; format: string }[]).map((column) => `${column.name}/${column.format}`)).toEqual(['Name/name', 'Catalog/', 'Age/']);
    expect(table['rows']).toEqual([{ cells: ['etcd', 'Community Operators', '2d5h'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: manifest.metadata } }]);
    expect((manifestTable([manifest], { includeObject: 'Object' })['rows'] as { object: unknown }[])[0]?.object).toBe(manifest);
    const undated = { ...manifest, metadata: { ...manifest.metadata, creationTimestamp: undefined } };
    expect((manifestTable([undated], { includeObject: 'None' })['rows'] as unknown[])[0]).toEqual({ cells: ['etcd', 'Community Operators', '<unknown>'] });
  });

  it('recognises a Table request', () => {
    expect(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json')).toBe(true);
    expect(wantsTable('application/json')).toBe(false);
    expect(wantsTable(undefined)).toBe(false);
  });
});
