import type { CachedObject, Logger, ObjectKind, ObjectReader } from '@olm/core';
import { startTestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperatorReconciler } from '../src/operator-reconciler.js';
import { crdManifest, Kinds } from './helpers.js';

let cluster: Awaited<ReturnType<typeof startTestCluster>>;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

/** An informer cache that has not yet seen the latest changes: the objects as they were. */
function staleCache(objects: readonly CachedObject[]): ObjectReader {
  const matches = (kind: ObjectKind, object: CachedObject) => object.apiVersion === kind.apiVersion && object.kind === kind.kind;
  return {
    // A fake holding plain objects of the kinds asked for: typed reads see them as the kind's type.
    get: (kind, name) => objects.find((object) => matches(kind, object) && object.metadata?.name === name) as never,
    list: (kind, options = {}) => {
      const key = options.labelSelector ?? '';
      return objects.filter((object) => matches(kind, object) && (key === '' || object.metadata?.labels?.[key] !== undefined)) as never;
    },
  };
}

const logger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => logger };

describe('an Operator missing while the cache is behind', () => {
  it('is not made again from a component that still exists but lost its label (an uninstall keeping a CRD)', async () => {
    const { client } = cluster;
    const crd = await client.create(crdManifest('ghost.example.com', 'Ghost'));
    const cached = { ...crd, metadata: { ...crd.metadata, labels: { 'operators.coreos.com/ghost.ns': '' } } };
    const reconciler = createOperatorReconciler({ client: () => client });
    await reconciler.reconcile({ name: 'ghost.ns' }, { cache: staleCache([cached]), logger, retries: 0, signal: new AbortController().signal });
    expect(await client.find({ ...Kinds.operator, name: 'ghost.ns' })).toBeUndefined();

    // Labelled live, it is.
    await client.patch({ ...Kinds.customResourceDefinition, name: crd.metadata!.name! }, { metadata: { labels: { 'operators.coreos.com/ghost.ns': '' } } });
    await reconciler.reconcile({ name: 'ghost.ns' }, { cache: staleCache([cached]), logger, retries: 0, signal: new AbortController().signal });
    expect(await client.find({ ...Kinds.operator, name: 'ghost.ns' })).toBeDefined();
  });
});
