import type { CachedObject } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltInIndexes } from '../src/indexer.js';
import { Informer } from '../src/informer.js';
import { InformerCache } from '../src/informer-cache.js';
import { KubeClient, type ListOptions, type ObjectList } from '../src/kube-client.js';
import { configMap, configMapKind, createNamespace, eventually, startServer } from './helpers.js';

let env: Awaited<ReturnType<typeof startServer>>;
let client: KubeClient;

beforeAll(async () => {
  env = await startServer({ durable: true });
  client = env.client();
  for (const namespace of ['inf', 'gone', 'restart']) await createNamespace(client, namespace);
});
afterAll(() => env?.stop());

const fastBackoff = { initialMs: 20, maxMs: 300 };

function recordEvents(informer: Informer) {
  const log: string[] = [];
  informer.addEventHandler({
    onAdd: (object) => log.push(`add ${object.metadata?.name}`),
    onUpdate: (oldObject, newObject) =>
      log.push(`${oldObject === newObject ? 'resync' : 'update'} ${newObject.metadata?.name}`),
    onDelete: (object) => log.push(`delete ${object.metadata?.name}`),
  });
  return log;
}

describe('Informer against the local API server', () => {
  it('lists in pages, then watches adds, updates and deletes into an indexed cache', async () => {
    for (let i = 0; i < 7; i += 1) await client.create(configMap('inf', `pre-${i}`, { i: String(i) }, { batch: 'pre' }));
    const informer = new Informer({ client, kind: configMapKind, backoff: fastBackoff, pageSize: 3 });
    const log = recordEvents(informer);
    informer.start();
    await informer.waitForSync(10_000);
    expect(informer.indexer.list({ namespace: 'inf', labelSelector: 'batch=pre' })).toHaveLength(7);
    expect(log.filter((line) => line.startsWith('add pre-'))).toHaveLength(7);

    await client.create(configMap('inf', 'live', { v: '1' }, { batch: 'live' }));
    await client.patch({ ...configMapKind, namespace: 'inf', name: 'live' }, { data: { v: '2' } });
    await client.delete({ ...configMapKind, namespace: 'inf', name: 'pre-0' });
    await eventually(() => log.includes('delete pre-0') && log.includes('update live'));
    expect((informer.indexer.get('inf/live') as CachedObject & { data: Record<string, string> }).data.v).toBe('2');
    expect(informer.indexer.get('inf/pre-0')).toBeUndefined();
    expect(informer.indexer.byIndex(BuiltInIndexes.label, 'batch=live')).toHaveLength(1);

    const late: string[] = [];
    informer.addEventHandler({ onAdd: (object) => late.push(object.metadata!.name!) });
    expect(late).toContain('live');
    informer.resync();
    expect(log.filter((line) => line.startsWith('resync'))).not.toHaveLength(0);
    await informer.stop();
    expect(informer.stats.errors).toBe(0);
  });

  it('lists again in one go when its continue token expires between pages', async () => {
    for (let i = 0; i < 5; i += 1) await client.create(configMap('gone', `paged-${i}`, {}));
    let compacted = false;
    // The real client; between the first and second page, the server's history is compacted.
    class CompactingClient extends KubeClient {
      override async list<T extends CachedObject>(kind: typeof configMapKind, options: ListOptions = {}): Promise<ObjectList<T>> {
        if (options.continue && !compacted) {
          compacted = true;
          await client.create(configMap('gone', 'written-between-pages', {}));
          env.server.compact(env.server.revision());
        }
        return super.list<T>(kind, options);
      }
    }
    const informer = new Informer({
      client: new CompactingClient({ kubeconfig: env.kubeconfig }),
      kind: configMapKind,
      namespace: 'gone',
      pageSize: 2,
      backoff: fastBackoff,
    });
    informer.start();
    await informer.waitForSync();
    expect(compacted).toBe(true);
    expect(informer.stats.errors).toBe(0);
    expect(informer.indexer.list({ namespace: 'gone' }).map((object) => object.metadata?.name).sort()).toEqual([
      'paged-0',
      'paged-1',
      'paged-2',
      'paged-3',
      'paged-4',
      'written-between-pages',
    ]);
    await informer.stop();
  });

  it('replays every cached object to handlers on the resync period', async () => {
    await client.create(configMap('inf', 'resynced', {}));
    const informer = new Informer({ client, kind: configMapKind, namespace: 'inf', resyncPeriodMs: 100 });
    const log = recordEvents(informer);
    informer.start();
    await informer.waitForSync();
    await eventually(() => log.filter((line) => line === 'resync resynced').length >= 2, { message: 'two resyncs' });
    await informer.stop();
  });

  it('relists on 410 Gone after its resourceVersion was compacted away', async () => {
    const informer = new Informer({ client, kind: configMapKind, namespace: 'gone', backoff: fastBackoff, watchTimeoutSeconds: 1, bookmarks: false });
    const log = recordEvents(informer);
    informer.start();
    await informer.waitForSync();
    // Writes to another kind move the store revision but not the informer's resume point (no bookmarks).
    for (let i = 0; i < 3; i += 1) {
      await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'gone', name: `s${i}` }, data: {} });
    }
    env.server.compact(env.server.revision());
    // The server ends the watch after 1 s; resuming from the compacted version gets 410.
    await eventually(() => informer.stats.expired > 0, { message: '410 seen' });
    await client.create(configMap('gone', 'after-compaction', {}));
    await eventually(() => informer.indexer.get('gone/after-compaction'), { message: 'object after relist' });
    expect(log).toContain('add after-compaction');
    await informer.stop();
  });

  it('restarts with backoff after the API server goes away, and misses no change made meanwhile', async () => {
    const cache = new InformerCache({ client, backoff: fastBackoff, resyncPeriodMs: 0 });
    const informer = cache.informerFor(configMapKind);
    const log = recordEvents(informer);
    await client.create(configMap('restart', 'doomed', {}));
    await client.create(configMap('restart', 'kept', { v: '1' }));
    cache.start();
    await cache.waitForSync();
    expect(cache.get(configMapKind, 'doomed', 'restart')).toBeDefined();

    await env.restart(300);
    // Changes right after the restart: a delete must show even if the watch missed it.
    const fresh = env.client();
    await fresh.delete({ ...configMapKind, namespace: 'restart', name: 'doomed' });
    await fresh.patch({ ...configMapKind, namespace: 'restart', name: 'kept' }, { data: { v: '2' } });
    await eventually(() => cache.get(configMapKind, 'doomed', 'restart') === undefined, { message: 'delete seen', timeoutMs: 15_000 });
    await eventually(
      () => (cache.get(configMapKind, 'kept', 'restart') as { data?: Record<string, string> } | undefined)?.data?.v === '2',
      { message: 'update seen', timeoutMs: 15_000 },
    );
    expect(informer.stats.errors).toBeGreaterThan(0);
    expect(log).toContain('delete doomed');
    await cache.stop();
  });
});
