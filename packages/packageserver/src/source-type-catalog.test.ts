import { catalogFromConfigMapData, createRegistryIndex } from '@olm/registry';
import { describe, expect, it } from 'vitest';
import { indexQueries } from './source-type-catalog.js';
import { readRegistry } from './read-registry.js';

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
