import { hasErrorCode, type CachedObject, type ReconcileRequest } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeErrorCodes } from '../src/errors.js';
import { InformerCache } from '../src/informer-cache.js';
import type { KubeClient } from '../src/kube-client.js';
import { createManager, type Manager } from '../src/manager.js';
import { configMap, configMapKind, createNamespace, eventually, startServer } from './helpers.js';

let env: Awaited<ReturnType<typeof startServer>>;
let client: KubeClient;
const managers: Manager[] = [];
const namespaceKind = { apiVersion: 'v1', kind: 'Namespace' } as const;
const secretKind = { apiVersion: 'v1', kind: 'Secret' } as const;

beforeAll(async () => {
  env = await startServer({ durable: true });
  client = env.client();
  for (const namespace of ['ns-a', 'ns-b', 'ns-c']) {
    await createNamespace(client, namespace);
    await client.create(configMap(namespace, 'before', { v: '1' }));
    await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace, name: 'token' }, data: {} });
  }
});
afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.stop()));
  await env?.stop();
});

const keys = (objects: readonly CachedObject[]) => objects.map((object) => `${object.metadata?.namespace}/${object.metadata?.name}`).sort();

describe('a manager limited to a list of namespaces', () => {
  it('caches and reconciles objects in those namespaces only, seen as one cache; cluster-scoped kinds whole', async () => {
    const reconciled = new Set<string>();
    const manager = createManager({
      kubeconfig: env.kubeconfig,
      namespaces: ['ns-a', 'ns-b'],
      informerBackoff: { initialMs: 20, maxMs: 300 },
      resyncPeriodMs: 0,
      gracefulShutdownTimeoutMs: 2_000,
    });
    managers.push(manager);
    manager.add({
      name: 'recorder',
      for: configMapKind,
      // A cluster-scoped kind: the namespaces do not limit it.
      watches: [{ ...namespaceKind, map: (): ReconcileRequest[] => [] }],
      async reconcile(request) {
        reconciled.add(`${request.namespace}/${request.name}`);
      },
    });
    await manager.start();

    expect(keys(manager.cache.list(configMapKind))).toEqual(['ns-a/before', 'ns-b/before']);
    expect(manager.cache.get(configMapKind, 'before', 'ns-c')).toBeUndefined();
    expect(manager.cache.list(configMapKind, { namespace: 'ns-b' })).toHaveLength(1);
    await eventually(() => reconciled.has('ns-a/before') && reconciled.has('ns-b/before'), { message: 'existing objects reconciled' });
    expect(manager.cache.list(namespaceKind).map((object) => object.metadata?.name)).toEqual(expect.arrayContaining(['ns-a', 'ns-b', 'ns-c', 'default']));

    // Changes in every namespace: only those in a and b are seen.
    await client.create(configMap('ns-a', 'later', {}));
    await client.create(configMap('ns-b', 'later', {}));
    await client.create(configMap('ns-c', 'later', {}));
    await client.patch({ ...configMapKind, namespace: 'ns-c', name: 'before' }, { data: { v: '2' } });
    await eventually(() => reconciled.has('ns-a/later') && reconciled.has('ns-b/later'), { message: 'new objects reconciled' });
    expect(keys(manager.cache.list(configMapKind))).toEqual(['ns-a/before', 'ns-a/later', 'ns-b/before', 'ns-b/later']);
    expect([...reconciled].filter((key) => key.startsWith('ns-c/'))).toEqual([]);

    // One list/watch per namespace for the namespaced kind, one for the cluster-scoped kind.
    const statsOf = (kind: string) => manager.cache.all.find((informer) => informer.kind.kind === kind)!.stats;
    expect(statsOf('ConfigMap')).toMatchObject({ lists: 2, errors: 0 });
    expect(statsOf('Namespace')).toMatchObject({ lists: 1, errors: 0 });

    // Each namespace relists on its own after the server comes back: a delete missed in a is seen,
    // and objects of b are kept (a relist of one namespace never drops another's).
    const deleted: string[] = [];
    manager.cache.informerFor(configMapKind).addEventHandler({ onDelete: (object) => deleted.push(keys([object])[0]!) });
    await env.restart(200);
    const fresh = env.client();
    await fresh.delete({ ...configMapKind, namespace: 'ns-a', name: 'before' });
    await eventually(() => manager.cache.get(configMapKind, 'before', 'ns-a') === undefined, { message: 'delete in a seen', timeoutMs: 15_000 });
    await eventually(() => statsOf('ConfigMap').lists >= 4, { message: 'both namespaces relisted', timeoutMs: 15_000 });
    expect(keys(manager.cache.list(configMapKind))).toEqual(['ns-a/later', 'ns-b/before', 'ns-b/later']);
    expect(deleted).toEqual(['ns-a/before']);
    fresh.close();
    await manager.stop();
  });

  it('caches a kind in additional namespaces when asked (a global catalog namespace), leaving other kinds alone', async () => {
    const manager = createManager({
      kubeconfig: env.kubeconfig,
      namespace: 'ns-a',
      additionalNamespaces: [{ ...configMapKind, namespaces: ['ns-c'] }],
      informerBackoff: { initialMs: 20, maxMs: 300 },
      resyncPeriodMs: 0,
    });
    managers.push(manager);
    manager.add({ name: 'noop', for: configMapKind, watches: [{ ...secretKind, map: () => [] }], async reconcile() {} });
    await manager.start();
    expect(keys(manager.cache.list(configMapKind))).toEqual(['ns-a/later', 'ns-c/before', 'ns-c/later']);
    expect(keys(manager.cache.list(secretKind))).toEqual(['ns-a/token']);
    expect(manager.cache.namespacesFor(configMapKind)).toEqual(['ns-a', 'ns-c']);
    await manager.stop();

    // Without a limit, additional namespaces change nothing: everything is cached.
    const all = new InformerCache({ client, additionalNamespaces: [{ ...configMapKind, namespaces: ['ns-c'] }] });
    expect(all.namespacesFor(configMapKind)).toEqual([]);
  });

  it('refuses namespace and namespaces together, and an empty name', () => {
    const both = (() => new InformerCache({ client, namespace: 'ns-a', namespaces: ['ns-b'] }));
    expect(both).toThrow('give namespace (one) or namespaces (a list), not both');
    try {
      createManager({ kubeconfig: env.kubeconfig, namespaces: ['ns-a', ''] });
      expect.unreachable();
    } catch (error) {
      expect(hasErrorCode(error, RuntimeErrorCodes.invalidArgument)).toBe(true);
      expect((error as Error).message).toBe('an empty namespace name was given; leave the namespaces out to watch all of them');
    }
  });
});
