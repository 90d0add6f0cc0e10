import type { CachedObject, Logger, ObjectKind, ObjectReader } from '@olm/core';
import { startTestCluster, type ServedRequest } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperatorConditionGeneratorReconciler } from '../src/generator-reconciler.js';
import { Kinds } from '../src/kinds.js';
import { createOperatorConditionReconciler } from '../src/operator-condition-reconciler.js';
import { csvManifest } from './helpers.js';

const served: ServedRequest[] = [];
let cluster: Awaited<ReturnType<typeof startTestCluster>>;
beforeAll(async () => {
  cluster = await startTestCluster({ onRequest: (request) => served.push(request) });
});
afterAll(async () => {
  await cluster?.stop();
});

/**
 * What the informer cache holds a moment after a namespace started terminating, before the
 * namespace controller reached its objects (on a real cluster it deletes kind by kind, for seconds):
 * the namespace as it is now, the objects as they were. The embedded namespace controller deletes
 * everything at once, so that moment cannot be caught live.
 */
function cacheOf(objects: readonly CachedObject[]): ObjectReader {
  const matches = (kind: ObjectKind, object: CachedObject) => object.apiVersion === kind.apiVersion && object.kind === kind.kind;
  return {
    // A fake holding plain objects of the kinds asked for: typed reads see them as the kind's type.
    get: (kind, name, namespace) => objects.find((object) => matches(kind, object) && object.metadata?.name === name && (object.metadata?.namespace ?? '') === (namespace ?? '')) as never,
    list: (kind, options = {}) => objects.filter((object) => matches(kind, object) && (options.namespace === undefined || object.metadata?.namespace === options.namespace)) as never,
  };
}

const logger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => logger };

describe('a namespace being deleted', () => {
  it('gets no OperatorCondition, Role or RoleBinding created in it', async () => {
    const { client } = cluster;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ending' } });
    const csv = await client.create({ ...csvManifest('ending', 'db.v1', { deployments: ['db'], permissions: ['db'] }), metadata: { namespace: 'ending', name: 'db.v1', finalizers: ['example.com/hold'] } });
    const condition = { ...Kinds.operatorCondition, metadata: { namespace: 'ending', name: 'db.v1', uid: 'c0ffee00-0000-4000-8000-000000000001' }, spec: { serviceAccounts: ['db'], deployments: ['db'] } };
    await client.delete({ ...Kinds.namespace, name: 'ending' });
    const namespace = await client.get({ ...Kinds.namespace, name: 'ending' });
    const cache = cacheOf([namespace, csv, condition]);
    const shared = { client: () => client, now: () => new Date() };
    const context = { cache, logger, retries: 0, signal: new AbortController().signal };

    const start = served.length;
    await createOperatorConditionGeneratorReconciler(shared).reconcile({ namespace: 'ending', name: 'db.v1' }, context);
    await createOperatorConditionReconciler(shared).reconcile({ namespace: 'ending', name: 'db.v1' }, context);
    expect(served.slice(start).map((request) => `${request.verb} ${request.resource} ${request.code}`)).toEqual([]);
  });
});
