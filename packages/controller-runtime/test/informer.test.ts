import type { CachedObject, ListOptions, ObjectList } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasErrorCode } from '@olm/core';
import { sleep } from '../src/backoff.js';
import { RuntimeErrorCodes } from '../src/errors.js';
import { BuiltInIndexes, ownerIndexValue } from '../src/indexer.js';
import { Informer } from '../src/informer.js';
import { InformerCache } from '../src/informer-cache.js';
import { KubeClient } from '../src/kube-client.js';
import { configMap, configMapKind, createNamespace, eventually, startServer } from './helpers.js';

let env: Awaited<ReturnType<typeof startServer>>;
let client: KubeClient;

beforeAll(async () => {
  env = await startServer({ durable: true });
  client = env.client();
  for (const namespace of ['inf', 'gone', 'restart', 'indexed']) await createNamespace(client, namespace);
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
    await informer.resync();
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

  it('shares one informer per kind in the cache and serves owner, label, namespace and custom indexes', async () => {
    type Data = CachedObject & { data?: Record<string, string> };
    const owner = await client.create(configMap('indexed', 'owner', {}));
    const ownerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! };
    await client.create({ ...configMap('indexed', 'child-a', { tier: 'web' }, { app: 'shop' }), metadata: { namespace: 'indexed', name: 'child-a', labels: { app: 'shop' }, ownerReferences: [ownerReference] } });
    await client.create({ ...configMap('indexed', 'child-b', { tier: 'db' }, { app: 'shop' }), metadata: { namespace: 'indexed', name: 'child-b', labels: { app: 'shop' }, ownerReferences: [ownerReference] } });
    await client.create(configMap('indexed', 'labelled', {}, { 'olm.owner': 'owner', 'olm.owner.namespace': 'indexed', 'olm.owner.kind': 'ConfigMap' }));

    const cache = new InformerCache({ client, backoff: fastBackoff, resyncPeriodMs: 0, namespace: 'indexed' });
    const byTier: Record<string, (object: CachedObject) => string[]> = { tier: (object) => [(object as Data).data?.['tier'] ?? 'none'] };
    const informer = cache.informerFor(configMapKind, byTier);
    // A second user of the kind gets the same informer, with its own index added to it.
    const again = cache.informerFor(configMapKind, { app: (object) => [object.metadata?.labels?.['app'] ?? ''] });
    expect(again).toBe(informer);
    expect(cache.all).toHaveLength(1);
    cache.start();
    await cache.waitForSync();

    const names = (objects: CachedObject[]) => objects.map((object) => object.metadata?.name).sort();
    const ownerKey = ownerIndexValue({ kind: 'ConfigMap', namespace: 'indexed', name: 'owner' });
    expect(names(cache.byIndex(configMapKind, BuiltInIndexes.owner, ownerKey))).toEqual(['child-a', 'child-b', 'labelled']);
    expect(names(cache.byIndex(configMapKind, BuiltInIndexes.owner, `uid:${owner.metadata!.uid}`))).toEqual(['child-a', 'child-b']);
    expect(names(cache.byIndex(configMapKind, BuiltInIndexes.label, 'app=shop'))).toEqual(['child-a', 'child-b']);
    expect(names(cache.byIndex(configMapKind, BuiltInIndexes.namespace, 'indexed'))).toEqual(['child-a', 'child-b', 'labelled', 'owner']);
    expect(names(cache.byIndex(configMapKind, 'tier', 'db'))).toEqual(['child-b']);
    expect(names(cache.byIndex(configMapKind, 'app', 'shop'))).toEqual(['child-a', 'child-b']);

    // Indexes follow changes seen by the watch.
    await client.patch({ ...configMapKind, namespace: 'indexed', name: 'child-a' }, { data: { tier: 'db' }, metadata: { labels: { app: null } } });
    await eventually(() => cache.byIndex(configMapKind, 'tier', 'db').length === 2, { message: 'custom index updated' });
    expect(names(cache.byIndex(configMapKind, BuiltInIndexes.label, 'app=shop'))).toEqual(['child-b']);
    expect(cache.byIndex(configMapKind, 'tier', 'web')).toEqual([]);
    await client.delete({ ...configMapKind, namespace: 'indexed', name: 'child-b' });
    await eventually(() => cache.byIndex(configMapKind, 'tier', 'db').length === 1, { message: 'delete unindexed' });
    expect(names(cache.byIndex(configMapKind, BuiltInIndexes.owner, `uid:${owner.metadata!.uid}`))).toEqual(['child-a']);
    expect(informer.stats.lists).toBe(1);
    await cache.stop();
  });

  it('caches only metadata for a metadata-only kind, in a cache of its own, following label changes and deletes', async () => {
    await createNamespace(client, 'metadata-only');
    const secretKind = { apiVersion: 'v1', kind: 'Secret' };
    const lastApplied = { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"aHVudGVyMg=="}}', keep: 'me' };
    await client.create({ ...secretKind, metadata: { namespace: 'metadata-only', name: 'db', labels: { app: 'db' }, annotations: lastApplied }, stringData: { password: 'hunter2' } });
    const cache = new InformerCache({ client, backoff: fastBackoff, resyncPeriodMs: 0, namespace: 'metadata-only' });
    const metadataKind = { ...secretKind, metadataOnly: true };
    const informer = cache.informerFor(metadataKind);
    const full = cache.informerFor(secretKind);
    expect(full).not.toBe(informer);
    const log = recordEvents(informer);
    cache.start();
    await cache.waitForSync();

    const cached = cache.get(metadataKind, 'db', 'metadata-only')!;
    expect(Object.keys(cached)).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(cached).toMatchObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', labels: { app: 'db' }, annotations: { keep: 'me' } } });
    expect(cached.metadata).not.toHaveProperty('managedFields');
    expect(JSON.stringify(cached)).not.toContain('aHVudGVy');
    expect((cache.get(secretKind, 'db', 'metadata-only') as CachedObject & { data: Record<string, string> }).data.password).toBe('aHVudGVyMg==');
    // The list asked the server for metadata only.
    const listed = await client.list(secretKind, { namespace: 'metadata-only', metadataOnly: true });
    expect(listed.items.map((item) => Object.keys(item))).toEqual([['apiVersion', 'kind', 'metadata']]);

    await client.patch({ ...secretKind, namespace: 'metadata-only', name: 'db' }, { metadata: { labels: { app: 'database' } } });
    await eventually(() => cache.list(metadataKind, { labelSelector: 'app=database' }).length === 1, { message: 'label change seen' });
    expect(cache.get(metadataKind, 'db', 'metadata-only')).not.toHaveProperty('data');
    await client.delete({ ...secretKind, namespace: 'metadata-only', name: 'db' });
    await eventually(() => log.includes('delete db'), { message: 'delete seen' });
    expect(informer.stats.errors).toBe(0);
    await cache.stop();
  });

  it('keeps objects carrying the metadata-only label as metadata, the others whole, following the label as it comes and goes', async () => {
    await createNamespace(client, 'labelled-metadata');
    const kind = { apiVersion: 'v1', kind: 'ConfigMap' };
    const cache = new InformerCache({ client, backoff: fastBackoff, resyncPeriodMs: 0, namespace: 'labelled-metadata', metadataOnlyLabelled: [{ ...kind, label: 'copied' }] });
    await client.create({ ...kind, metadata: { namespace: 'labelled-metadata', name: 'source' }, data: { body: 'large' } });
    await client.create({ ...kind, metadata: { namespace: 'labelled-metadata', name: 'copy', labels: { copied: 'elsewhere' }, annotations: { hash: 'h1' } }, data: { body: 'large' } });
    cache.informerFor(kind);
    cache.start();
    await cache.waitForSync();

    const copy = cache.get(kind, 'copy', 'labelled-metadata')!;
    expect(Object.keys(copy)).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(copy.metadata).toMatchObject({ labels: { copied: 'elsewhere' }, annotations: { hash: 'h1' } });
    expect(copy.metadata).not.toHaveProperty('managedFields');
    expect(cache.get(kind, 'source', 'labelled-metadata')).toMatchObject({ data: { body: 'large' } });
    expect(cache.list(kind, { labelSelector: 'copied=elsewhere' })).toEqual([copy]);

    // Watched changes too: a copy's new annotation arrives without its body; an object losing the label is whole again.
    await client.patch({ ...kind, namespace: 'labelled-metadata', name: 'copy' }, { metadata: { annotations: { hash: 'h2' } }, data: { body: 'larger' } });
    await eventually(() => cache.get(kind, 'copy', 'labelled-metadata')?.metadata?.annotations?.hash === 'h2', { message: 'the copy update seen' });
    expect(cache.get(kind, 'copy', 'labelled-metadata')).not.toHaveProperty('data');
    await client.patch({ ...kind, namespace: 'labelled-metadata', name: 'copy' }, { metadata: { labels: { copied: null } } });
    await eventually(() => (cache.get(kind, 'copy', 'labelled-metadata') as CachedObject & { data?: { body?: string } })?.data?.body === 'larger', { message: 'whole again' });
    await cache.stop();
  });

  it('spaces restarts by its backoff while the API server cannot be reached, and says why it cannot sync', async () => {
    const unreachable = new KubeClient({
      kubeconfig: `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'http://127.0.0.1:9', insecure-skip-tls-verify: true } }]
users: [{ name: u, user: {} }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
    });
    // 40, 80, 160, 320, 320, … ms between attempts: about six attempts in 1.2 s, where a loop
    // without backoff would fail hundreds of times.
    const informer = new Informer({ client: unreachable, kind: configMapKind, backoff: { initialMs: 40, maxMs: 320 } });
    informer.start();
    const syncError = await informer.waitForSync(1_200).catch((error: unknown) => error);
    expect(hasErrorCode(syncError, RuntimeErrorCodes.cacheSyncTimeout)).toBe(true);
    expect((syncError as Error).message).toMatch(/did not sync within 1200 ms; last error: GET \/api\/v1 failed: .*ECONNREFUSED/);
    const errors = informer.stats.errors;
    expect(errors).toBeGreaterThanOrEqual(3);
    expect(errors).toBeLessThanOrEqual(10);
    // At the cap, one more attempt every 320 ms.
    await sleep(700);
    expect(informer.stats.errors - errors).toBeLessThanOrEqual(4);
    await informer.stop();
  });
});
