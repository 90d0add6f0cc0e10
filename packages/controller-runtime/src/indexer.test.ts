import { hasErrorCode, type CachedObject } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { RuntimeErrorCodes } from './errors.js';
import { BuiltInIndexes, Indexer, ownerIndexValue } from './indexer.js';

const configMap = (namespace: string, name: string, extra: Partial<NonNullable<CachedObject['metadata']>> = {}): CachedObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, ...extra },
});

const names = (objects: CachedObject[]) => objects.map((object) => object.metadata!.name).sort();

describe('Indexer', () => {
  it('stores by namespace/name and indexes by namespace', () => {
    const indexer = new Indexer();
    indexer.upsert(configMap('a', 'one'));
    indexer.upsert(configMap('a', 'two'));
    indexer.upsert(configMap('b', 'one'));
    indexer.upsert({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } });
    expect(indexer.size).toBe(4);
    expect(indexer.get('a/one')?.metadata?.namespace).toBe('a');
    expect(indexer.get('a')?.kind).toBe('Namespace');
    expect(names(indexer.list({ namespace: 'a' }))).toEqual(['one', 'two']);
    expect(names(indexer.byIndex(BuiltInIndexes.namespace, ''))).toEqual(['a']);
    expect(names(indexer.list())).toEqual(['a', 'one', 'one', 'two']);
  });

  it('re-indexes on update and forgets on delete', () => {
    const indexer = new Indexer();
    indexer.upsert(configMap('ns', 'x', { labels: { tier: 'web' } }));
    expect(names(indexer.list({ labelSelector: 'tier=web' }))).toEqual(['x']);
    const previous = indexer.upsert(configMap('ns', 'x', { labels: { tier: 'db' } }));
    expect(previous?.metadata?.labels).toEqual({ tier: 'web' });
    expect(indexer.list({ labelSelector: 'tier=web' })).toEqual([]);
    expect(names(indexer.list({ labelSelector: 'tier in (db,cache)' }))).toEqual(['x']);
    expect(indexer.indexValues(BuiltInIndexes.label)).toEqual(['tier=db']);
    indexer.delete('ns/x');
    expect(indexer.list({ labelSelector: 'tier=db' })).toEqual([]);
    expect(indexer.indexValues(BuiltInIndexes.label)).toEqual([]);
    expect(indexer.delete('ns/x')).toBeUndefined();
  });

  it('filters by namespace and selector together', () => {
    const indexer = new Indexer();
    indexer.upsert(configMap('a', 'x', { labels: { app: 'olm' } }));
    indexer.upsert(configMap('b', 'y', { labels: { app: 'olm' } }));
    indexer.upsert(configMap('b', 'z', { labels: { app: 'other' } }));
    expect(names(indexer.list({ namespace: 'b', labelSelector: 'app=olm' }))).toEqual(['y']);
    expect(names(indexer.list({ namespace: 'b', labelSelector: 'app' }))).toEqual(['y', 'z']);
  });

  it('indexes owners from ownerReferences and from OLM owner labels', () => {
    const indexer = new Indexer();
    indexer.upsert(
      configMap('ns', 'by-ref', {
        ownerReferences: [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'etcd.v1', uid: 'u-1' }],
      }),
    );
    indexer.upsert(
      configMap('other', 'by-label', {
        labels: { 'olm.owner': 'etcd.v1', 'olm.owner.namespace': 'ns', 'olm.owner.kind': 'ClusterServiceVersion' },
      }),
    );
    const owner = ownerIndexValue({ kind: 'ClusterServiceVersion', namespace: 'ns', name: 'etcd.v1' });
    expect(names(indexer.byIndex(BuiltInIndexes.owner, owner))).toEqual(['by-label', 'by-ref']);
    expect(names(indexer.byIndex(BuiltInIndexes.owner, 'uid:u-1'))).toEqual(['by-ref']);
  });

  it('supports custom indexes, added before or after objects, and survives a throwing index function', () => {
    const indexer = new Indexer({ byData: (object) => Object.keys((object.data as Record<string, string>) ?? {}) });
    indexer.upsert({ ...configMap('ns', 'a'), data: { k1: 'v' } });
    indexer.upsert({ ...configMap('ns', 'b'), data: { k1: 'v', k2: 'v' } });
    indexer.addIndex('firstLetter', (object) => [object.metadata!.name!.slice(0, 1)]);
    indexer.addIndex('broken', () => {
      throw new Error('bad object');
    });
    indexer.upsert({ ...configMap('ns', 'c'), data: {} });
    expect(names(indexer.byIndex('byData', 'k1'))).toEqual(['a', 'b']);
    expect(names(indexer.byIndex('byData', 'k2'))).toEqual(['b']);
    expect(names(indexer.byIndex('firstLetter', 'c'))).toEqual(['c']);
    expect(indexer.byIndex('broken', 'x')).toEqual([]);
    expect(() => indexer.byIndex('nope', 'x')).toThrowError(/no index named "nope"/);
    let duplicate: unknown;
    try {
      indexer.addIndex('byData', () => []);
    } catch (error) {
      duplicate = error;
    }
    expect(hasErrorCode(duplicate, RuntimeErrorCodes.invalidArgument)).toBe(true);
  });

  it('lists the objects without a label from an index that follows adds, label changes and deletes', () => {
    const indexer = new Indexer();
    indexer.upsert(configMap('a', 'source'));
    indexer.upsert(configMap('b', 'copy', { labels: { copiedFrom: 'a' } }));
    expect(names(indexer.list({ labelSelector: '!copiedFrom' }))).toEqual(['source']);
    indexer.upsert(configMap('c', 'later'));
    indexer.upsert(configMap('a', 'source', { labels: { copiedFrom: 'z' } }));
    indexer.upsert(configMap('b', 'copy'));
    expect(names(indexer.list({ labelSelector: '!copiedFrom' }))).toEqual(['copy', 'later']);
    indexer.delete('c/later');
    expect(names(indexer.list({ labelSelector: '!copiedFrom,tier=x' }))).toEqual([]);
    expect(names(indexer.list({ labelSelector: '!copiedFrom' }))).toEqual(['copy']);
    expect(names(indexer.list({ namespace: 'a', labelSelector: '!copiedFrom' }))).toEqual([]);
  });
});
