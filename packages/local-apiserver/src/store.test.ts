import { describe, expect, it } from 'vitest';
import type { KubeObject } from './kube-object.js';
import { Store, type StoreEvent } from './store.js';

const object = (name: string, namespace = 'default'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });

describe('Store', () => {
  it('gives every write the next revision and lists in key order', () => {
    const store = new Store(10);
    expect(store.put('/configmaps', object('b')).revision).toBe(1);
    expect(store.put('/configmaps', object('a')).revision).toBe(2);
    expect(store.put('/configmaps', object('c', 'other')).revision).toBe(3);
    const removed = store.remove('/configmaps', store.get('/configmaps', 'default', 'b')!);
    expect(removed).toMatchObject({ revision: 4, type: 'DELETED', object: { metadata: { resourceVersion: '4' } } });
    expect(store.list('/configmaps').map((o) => o.metadata.name)).toEqual(['a', 'c']);
    expect(store.list('/configmaps', 'default').map((o) => o.metadata.name)).toEqual(['a']);
    expect(store.revision).toBe(4);
  });

  it('replays retained events and reports compacted ones as expired', () => {
    const store = new Store(3);
    for (const name of ['a', 'b', 'c', 'd', 'e']) store.put('/configmaps', object(name));
    expect(store.compactedRevision).toBe(2);
    expect(store.eventsSince(1)).toBeUndefined();
    expect(store.eventsSince(2)?.map((event) => event.revision)).toEqual([3, 4, 5]);
    expect(store.eventsSince(4)?.map((event) => event.object.metadata.name)).toEqual(['e']);
    store.compact(4);
    expect(store.eventsSince(3)).toBeUndefined();
  });

  it('keeps fewer events when they hold more than windowBytes, so large objects cannot fill memory through history', () => {
    const store = new Store(1000, 1024 * 1024, 10_000);
    const large = (name: string): KubeObject => ({ ...object(name), data: { blob: 'x'.repeat(3000) } });
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) store.put('/configmaps', large(name));
    // About 3.1 kB each: three fit in 10,000 bytes.
    expect(store.eventsSince(store.compactedRevision)?.map((event) => event.object.metadata.name)).toEqual(['d', 'e', 'f']);
    expect(store.eventsSince(2)).toBeUndefined();
    // An update retains the object and its previous state: it counts twice.
    store.put('/configmaps', { ...large('f'), data: { blob: 'y'.repeat(3000) } });
    expect(store.history().map((event) => `${event.revision} ${event.type}`)).toEqual(['6 ADDED', '7 MODIFIED']);
    // The objects themselves stay.
    expect(store.count('/configmaps')).toBe(6);
  });

  it('dispatches events to subscribers in revision order, with the previous object', async () => {
    const store = new Store();
    const seen: StoreEvent[] = [];
    store.subscribe((event) => seen.push(event));
    store.put('/configmaps', object('a'));
    store.put('/configmaps', { ...object('a'), data: { x: '1' } });
    expect(seen).toEqual([]);
    await Promise.resolve();
    expect(seen.map((event) => `${event.revision} ${event.type}`)).toEqual(['1 ADDED', '2 MODIFIED']);
    expect(seen[1]?.previous?.metadata.resourceVersion).toBe('1');
  });
});

describe('Store.iterate', () => {
  it('starts after a key and stays within a namespace', () => {
    const store = new Store();
    for (const [namespace, name] of [['a', 'x'], ['b', 'x'], ['b', 'y'], ['b', 'z'], ['c', 'x']] as const) store.put('/configmaps', object(name, namespace));
    const names = (namespace?: string, after?: string) => [...store.iterate('/configmaps', namespace, after)].map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(names('b')).toEqual(['b/x', 'b/y', 'b/z']);
    expect(names('b', 'b/x')).toEqual(['b/y', 'b/z']);
    expect(names('b', 'a/x')).toEqual(['b/x', 'b/y', 'b/z']);
    expect(names(undefined, 'b/y')).toEqual(['b/z', 'c/x']);
    expect(names('d')).toEqual([]);
  });
});
