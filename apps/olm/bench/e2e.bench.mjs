// End-to-end benchmarks of the built distribution. Prints one JSON line per case, each with its
// target and the measured value (a miss is reported, never a failure: the machine may be shared).
// Run after a build: `pnpm bench` at the root, or `pnpm --filter @olm/olm bench`.
//
// Topology, as deploy/ runs it: the controllers are their own process (`olm run`, the built CLI,
// leader election off as `olm up` has it); this process hosts the local API server and the gRPC
// catalog servers, creates objects over HTTP and watches CSVs for `Succeeded`.
//   a. Subscription created -> CSV Succeeded, one operator (acme-database), median of 10, a fresh
//      namespace each time.
//   b. 100 Subscriptions in 100 namespaces created at once -> all 100 CSVs Succeeded.
//   c. RSS of the controllers' process with ../shared/catalogs/certified-operators-v4.18 served as a
//      CatalogSource beside the example catalog, after 100 operators are installed (from the example
//      catalog: the certified bundles reference images that cannot be pulled here; every resolution
//      still reads the certified catalog, which sits in the same global catalog namespace). The peak
//      is the process's own high-water mark (VmHWM) where /proc has it, which costs the process
//      nothing and covers its whole life (the catalog load too); elsewhere /metrics is sampled every
//      100 ms during the installs.
// BENCH_QUICK=1 runs 3 + 10 + 10 operators instead of 10 + 100 + 100.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeClient } from '@olm/controller-runtime';
import { startApiServer } from '@olm/local-apiserver';
import { exampleCatalogDirectory, installOlmResources, serveCatalogs } from '../dist/local-cluster.js';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const certifiedCatalog = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));
const quick = process.env.BENCH_QUICK === '1';
const singleRuns = quick ? 3 : 10;
const concurrentOperators = quick ? 10 : 100;
const installedForMemory = quick ? 10 : 100;
const deadlineMs = 600_000;

const print = (line) => console.log(JSON.stringify(line));
const round = (value, digits = 0) => Math.round(value * 10 ** digits) / 10 ** digits;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The local API server, OLM's CRDs and namespaces, the given catalogs, and `olm run` as a child process. */
async function startCluster(catalogDirectories) {
  const directory = await mkdtemp(join(tmpdir(), 'olm-bench-'));
  const server = await startApiServer({ port: 0, kubeconfigPath: join(directory, 'kubeconfig') });
  const client = new KubeClient({ kubeconfig: server.kubeconfig });
  await installOlmResources(client, { namespace: 'olm' });
  const catalogs = await serveCatalogs(client, catalogDirectories, 'olm');
  const csvs = watchCsvs(server.url);
  const child = spawn(
    process.execPath,
    [cli, 'run', '--kubeconfig', server.kubeconfigPath, '-n', 'olm', '--no-leader-election', '--metrics-port', '0', '--metrics-host', '127.0.0.1', '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const startedAt = performance.now();
  while (!/on (http:\/\/\S+)/.test(output)) {
    if (child.exitCode !== null) throw new Error(`olm run exited with ${child.exitCode}:\n${output}`);
    if (performance.now() - startedAt > 60_000) throw new Error(`olm run did not start within 60 s:\n${output}`);
    await sleep(20);
  }
  const metricsUrl = /on (http:\/\/\S+)/.exec(output)[1];
  return {
    server,
    csvs,
    metricsUrl,
    output: () => output,
    async rssBytes() {
      return (await this.memory()).rss;
    },
    /** The process's peak resident memory so far (Linux VmHWM), or undefined where /proc cannot tell. */
    async peakRssBytes() {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
      const kB = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
      return kB === undefined ? undefined : Number(kB) * 1024;
    },
    /** The controllers' resident memory and V8 heap in use, from their own /metrics (prom-client). */
    async memory() {
      const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
      const value = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
      return { rss: value('process_resident_memory_bytes'), heapUsed: value('nodejs_heap_size_used_bytes') };
    },
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      csvs.stop();
      await Promise.all(catalogs.map((catalog) => catalog.server.stop({ graceMs: 0 })));
      client.close();
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Follows every CSV through a cluster-wide watch; `succeeded(ns)` resolves when one in `ns` is Succeeded. */
function watchCsvs(url) {
  const succeededAt = new Map();
  const waiters = new Map();
  const controller = new AbortController();
  let resourceVersion = '';
  const handle = (event) => {
    if (event.type === 'BOOKMARK' || event.type === 'ERROR') return;
    resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
    const namespace = event.object.metadata.namespace;
    if (event.object.status?.phase !== 'Succeeded' || succeededAt.has(namespace)) return;
    succeededAt.set(namespace, performance.now());
    for (const resolve of waiters.get(namespace) ?? []) resolve(succeededAt.get(namespace));
    waiters.delete(namespace);
  };
  void (async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(`${url}/apis/operators.coreos.com/v1alpha1/clusterserviceversions?watch=true&resourceVersion=${resourceVersion}`, { signal: controller.signal });
        const decoder = new TextDecoder();
        let buffer = '';
        for await (const chunk of response.body) {
          buffer += decoder.decode(chunk, { stream: true });
          let newline;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line.trim()) handle(JSON.parse(line));
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        await sleep(50);
      }
    }
  })();
  return {
    succeeded(namespace) {
      if (succeededAt.has(namespace)) return Promise.resolve(succeededAt.get(namespace));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no CSV Succeeded in ${namespace} within ${deadlineMs / 1000} s`)), deadlineMs);
        waiters.set(namespace, [...(waiters.get(namespace) ?? []), (at) => (clearTimeout(timer), resolve(at))]);
      });
    },
    stop: () => controller.abort(),
  };
}

async function post(server, path, body) {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
}

/** A namespace with an OwnNamespace OperatorGroup, ready for a Subscription (not timed). */
async function prepareNamespace(server, namespace) {
  await post(server, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await post(server, `/apis/operators.coreos.com/v1/namespaces/${namespace}/operatorgroups`, {
    apiVersion: 'operators.coreos.com/v1',
    kind: 'OperatorGroup',
    metadata: { name: namespace, namespace },
    spec: { targetNamespaces: [namespace] },
  });
}

const subscribe = (server, namespace) =>
  post(server, `/apis/operators.coreos.com/v1alpha1/namespaces/${namespace}/subscriptions`, {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: { name: 'acme-database', namespace },
    spec: { name: 'acme-database', channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm' },
  });

/** Creates `count` Subscriptions at once in prepared namespaces; resolves with the time until all CSVs Succeeded. */
async function installAtOnce(cluster, prefix, count) {
  const namespaces = Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
  for (const namespace of namespaces) await prepareNamespace(cluster.server, namespace);
  const start = performance.now();
  await Promise.all(namespaces.map((namespace) => subscribe(cluster.server, namespace)));
  const done = await Promise.all(namespaces.map((namespace) => cluster.csvs.succeeded(namespace)));
  return { ms: Math.max(...done) - start, namespaces };
}

const example = { name: 'acme-examples', directory: exampleCatalogDirectory };

// a + b: the example catalog only.
{
  const cluster = await startCluster([example]);
  try {
    const samples = [];
    for (let index = 0; index < singleRuns; index += 1) {
      const namespace = `single-${index}`;
      await prepareNamespace(cluster.server, namespace);
      const start = performance.now();
      await subscribe(cluster.server, namespace);
      samples.push((await cluster.csvs.succeeded(namespace)) - start);
    }
    const measured = median(samples);
    print({
      case: 'olm e2e: Subscription created -> CSV Succeeded, 1 operator',
      operator: 'acme-database',
      runs: samples.length,
      medianMs: round(measured),
      minMs: round(Math.min(...samples)),
      maxMs: round(Math.max(...samples)),
      firstMs: round(samples[0]),
      targetMs: 2000,
      withinTarget: measured < 2000,
    });

    const { ms } = await installAtOnce(cluster, 'many', concurrentOperators);
    print({
      case: `olm e2e: ${concurrentOperators} Subscriptions in ${concurrentOperators} namespaces at once -> all CSVs Succeeded`,
      operator: 'acme-database',
      operators: concurrentOperators,
      ms: round(ms),
      perOperatorMs: round(ms / concurrentOperators, 1),
      targetMs: 30_000,
      withinTarget: ms < 30_000,
      controllersRssMB: round((await cluster.rssBytes()) / 1048576),
    });
  } finally {
    await cluster.stop();
  }
}

// c: the certified-operators catalog served beside the example catalog, 100 operators installed.
if (!existsSync(certifiedCatalog)) {
  print({ case: 'olm e2e: controllers RSS with certified-operators-v4.18 and 100 operators', skipped: `catalog not found at ${certifiedCatalog}` });
} else {
  const cluster = await startCluster([example, { name: 'certified-operators', directory: certifiedCatalog }]);
  try {
    const idleBytes = await cluster.rssBytes();
    let peakBytes = idleBytes;
    // Polling /metrics ten times a second makes garbage in the process it measures: only where /proc cannot tell.
    const highWaterMark = (await cluster.peakRssBytes()) !== undefined;
    const sampler = highWaterMark
      ? undefined
      : setInterval(() => {
          cluster.rssBytes().then((bytes) => (peakBytes = Math.max(peakBytes, bytes)), () => {});
        }, 100);
    let ms;
    try {
      ({ ms } = await installAtOnce(cluster, 'memory', installedForMemory));
    } finally {
      clearInterval(sampler);
    }
    // Let in-flight reconciles finish and the heap settle before the steady-state reading.
    await sleep(5000);
    const settled = await cluster.memory();
    const settledBytes = settled.rss;
    peakBytes = Math.max(peakBytes, settledBytes, (await cluster.peakRssBytes()) ?? 0);
    const targetMB = 300;
    print({
      case: `olm e2e: controllers RSS with certified-operators-v4.18 served and ${installedForMemory} operators installed`,
      catalogs: ['acme-examples', 'certified-operators-v4.18 (739 bundles)'],
      operators: installedForMemory,
      rssMB: round(settledBytes / 1048576),
      peakRssMB: round(peakBytes / 1048576),
      peakFrom: highWaterMark ? 'VmHWM' : 'sampled /metrics',
      idleRssMB: round(idleBytes / 1048576),
      heapUsedMB: round(settled.heapUsed / 1048576),
      installMs: round(ms),
      targetMB,
      withinTarget: peakBytes / 1048576 < targetMB,
    });
  } finally {
    await cluster.stop();
  }
}
