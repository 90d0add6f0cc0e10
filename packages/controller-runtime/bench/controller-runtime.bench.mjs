// Benchmarks for @olm/controller-runtime. Prints one JSON line per case.
// Run after a build: `pnpm bench` (imports ../dist/index.js).
import v8 from 'node:v8';
import vm from 'node:vm';
import { Registry } from 'prom-client';
import { Controller, createManager, createRuntimeMetrics, Indexer, InformerCache, KubeClient } from '../dist/index.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const print = (line) => console.log(JSON.stringify(line));
const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

const unreachableKubeconfig = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'http://127.0.0.1:9', insecure-skip-tls-verify: true } }]
users: [{ name: u, user: {} }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`;

function configMap(index, namespace = 'bench') {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${index}`,
      namespace,
      uid: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      resourceVersion: String(1000 + index),
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'bench', shard: String(index % 16) },
      ownerReferences: [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: `csv-${index % 50}`, uid: `owner-${index % 50}` }],
    },
    data: { key: `value-${index}`, other: 'x'.repeat(64) },
  };
}

/** Queue + workers only: how fast a no-op reconciler drains 10k keys. */
async function benchQueue(concurrency) {
  let done = 0;
  let resolveAll;
  const all = new Promise((resolve) => (resolveAll = resolve));
  const cache = new InformerCache({ client: new KubeClient({ kubeconfig: unreachableKubeconfig }) });
  const controller = new Controller({
    reconciler: {
      name: `noop-${concurrency}`,
      for: { apiVersion: 'v1', kind: 'ConfigMap' },
      maxConcurrentReconciles: concurrency,
      async reconcile() {
        done += 1;
        if (done === OBJECTS) resolveAll();
      },
    },
    cache,
    metrics: createRuntimeMetrics(new Registry()),
  });
  await controller.start();
  const started = performance.now();
  for (let i = 0; i < OBJECTS; i += 1) controller.enqueue({ namespace: 'bench', name: `cm-${i}` });
  await all;
  const seconds = (performance.now() - started) / 1000;
  await controller.stop();
  print({ case: `queue-noop-reconcile-${OBJECTS}`, concurrency, reconciles: OBJECTS, seconds: round(seconds, 3), reconcilesPerSecond: Math.round(OBJECTS / seconds) });
}

/** Heap growth per object held in an Indexer with the built-in indexes (namespace, owner, label). */
function benchIndexerMemory() {
  const objects = Array.from({ length: OBJECTS }, (_, i) => configMap(i));
  gc();
  const before = process.memoryUsage().heapUsed;
  const bare = objects.map((object) => structuredClone(object));
  gc();
  const objectsOnly = process.memoryUsage().heapUsed - before;
  const indexer = new Indexer();
  for (const object of bare) indexer.upsert(object);
  gc();
  const withIndex = process.memoryUsage().heapUsed - before;
  print({
    case: `indexer-memory-${OBJECTS}`,
    objects: indexer.size,
    bytesPerObjectJson: Math.round(JSON.stringify(objects[0]).length),
    bytesPerObjectHeap: Math.round(objectsOnly / OBJECTS),
    bytesPerObjectCached: Math.round(withIndex / OBJECTS),
    indexOverheadBytesPerObject: Math.round((withIndex - objectsOnly) / OBJECTS),
  });
}

/** End to end against the local API server: list+watch 10k objects, then reconcile each once. */
async function benchManager() {
  let startApiServer;
  try {
    ({ startApiServer } = await import('@olm/local-apiserver'));
  } catch (error) {
    print({ case: `manager-noop-reconcile-${OBJECTS}`, skipped: `local API server not importable: ${error.message}` });
    return;
  }
  const server = await startApiServer({ port: 0 });
  try {
    const client = new KubeClient({ kubeconfig: server.kubeconfig });
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    const createStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < OBJECTS) {
          const index = next++;
          const { metadata, ...rest } = configMap(index);
          await client.create({ ...rest, metadata: { name: metadata.name, namespace: metadata.namespace, labels: metadata.labels } });
        }
      }),
    );
    const createSeconds = (performance.now() - createStarted) / 1000;

    let done = 0;
    let resolveAll;
    const all = new Promise((resolve) => (resolveAll = resolve));
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const manager = createManager({ client, resyncPeriodMs: 0 });
    manager.add({
      name: 'noop',
      for: { apiVersion: 'v1', kind: 'ConfigMap' },
      maxConcurrentReconciles: 4,
      async reconcile(request) {
        if (request.namespace !== 'bench') return;
        done += 1;
        if (done === OBJECTS) resolveAll();
      },
    });
    const started = performance.now();
    await manager.start();
    const syncSeconds = (performance.now() - started) / 1000;
    await all;
    const totalSeconds = (performance.now() - started) / 1000;
    gc();
    const cachedObjects = manager.cache.list({ apiVersion: 'v1', kind: 'ConfigMap' }).length;
    const heapAfter = process.memoryUsage().heapUsed;
    const sample = manager.cache.get({ apiVersion: 'v1', kind: 'ConfigMap' }, 'cm-1', 'bench');
    print({
      case: `manager-noop-reconcile-${OBJECTS}`,
      objects: OBJECTS,
      createSecondsOverHttp: round(createSeconds, 2),
      listSyncSeconds: round(syncSeconds, 3),
      reconcileSeconds: round(totalSeconds - syncSeconds, 3),
      reconcilesPerSecond: Math.round(OBJECTS / (totalSeconds - syncSeconds)),
      endToEndPerSecond: Math.round(OBJECTS / totalSeconds),
      cachedObjects,
      bytesPerObjectJson: JSON.stringify(sample).length,
      heapBytesPerCachedObject: Math.round((heapAfter - heapBefore) / cachedObjects),
    });
    await manager.stop();
  } finally {
    await server.stop();
  }
}

await benchQueue(1);
await benchQueue(4);
benchIndexerMemory();
if (process.env.BENCH_SERVER !== "0") await benchManager();
