// Scale benchmark of the built distribution (issue 27): `olm up` (one process: the local API server, the
// controllers, the catalogs and the packageserver), M AllNamespaces operators in the `operators` namespace,
// then N namespaces created in waves of 2,500; every namespace gets a copy of every operator's CSV.
// Prints one JSON line per case:
//   a. copies: N namespaces created -> all N x M copies present (convergence), the longest event-loop block
//      and the worst per-second p99 seen by `olm up`'s own /metrics (prom-client's event-loop monitor,
//      scraped every second), the slowest /healthz answer, peak and final RSS, work-queue adds per copy;
//   b. at rest: CPU of the `olm up` process over 10 s, and API writes per second (resourceVersion growth);
//   c. disableCopiedCSVs: OLMConfig `cluster` switched -> every copy gone, CPU at rest after.
// The first three operators come from the example catalog through Subscriptions (acme-database, acme-backup,
// acme-monitoring); operators beyond three are CSVs created directly (the catalog has three packages).
// SCALE_NAMESPACES (default 1000) and SCALE_OPERATORS (default 3, at most 5) choose N and M. A miss is
// reported, never a failure: the machine may be shared.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Informer, KubeClient } from '@olm/controller-runtime';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const namespaceCount = Number(process.env.SCALE_NAMESPACES ?? 1000);
const operatorCount = Math.min(5, Math.max(1, Number(process.env.SCALE_OPERATORS ?? 3)));
const waveSize = 2500;
const createConcurrency = 32;
const deadlineMs = Number(process.env.SCALE_DEADLINE_MS ?? 3_600_000);
const catalogPackages = ['acme-database', 'acme-backup', 'acme-monitoring'];
// Extra Node.js flags for `olm up` (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to find a hot spot).
const olmNodeArgs = (process.env.SCALE_OLM_NODE_ARGS ?? '').split(' ').filter(Boolean);
const split = process.env.SCALE_SPLIT === '1';
// A pause after convergence, before the at-rest case (to attach an inspector and take a heap snapshot).
const holdMs = Number(process.env.SCALE_HOLD_MS ?? 0);
const csvKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' };

const print = (line) => console.log(JSON.stringify(line));
const round = (value, digits = 0) => Math.round(value * 10 ** digits) / 10 ** digits;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes) => round(bytes / 1024 / 1024);

async function until(condition, message, timeoutMs = deadlineMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${message}: not within ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

/** A child process of the built CLI, its output kept, started once `ready` matches its output. */
async function spawnCli(name, args, ready, image = undefined) {
  // OLM's processes run as its container image runs them (deploy/Dockerfile): its Node.js flags and allocator settings.
  const nodeArgs = image ? image.nodeArgs : ['--max-old-space-size=4096'];
  const child = spawn(process.execPath, [...nodeArgs, ...olmNodeArgs, cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: image ? { ...process.env, ...image.env } : process.env });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  await until(() => {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
    return ready.test(output);
  }, `${name} did not start:\n${output}`, 120_000);
  const operationsUrl = /metrics, health and readiness on (\S+)/.exec(output)?.[1];
  return {
    name,
    pid: child.pid,
    operationsUrl,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/**
 * `olm up` in its own data directory. Split (SCALE_SPLIT=1): `olm up` is only the API server and the
 * catalogs, and OLM runs beside it as on a real cluster, one process each: `olm run --controllers csv`,
 * `olm run --controllers catalog` (each electing its own leader) and `olm packageserver`.
 */
async function startOlm() {
  const directory = await mkdtemp(join(tmpdir(), 'olm-scale-'));
  const kubeconfig = join(directory, 'kubeconfig');
  const common = ['--metrics-port', '0', '--log-level', 'warn'];
  const up = await spawnCli(
    'olm up',
    ['up', '--port', '0', '--host', '127.0.0.1', '--kubeconfig', kubeconfig, ...common, ...(split ? ['--no-controllers', '--no-packageserver'] : [])],
    /running; press Ctrl-C/,
  );
  const imageRuntime = { nodeArgs: ['--optimize-for-size'], env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } };
  const olmProcesses = split
    ? await Promise.all([
        spawnCli('csv', ['run', '--kubeconfig', kubeconfig, '--controllers', 'csv', '--metrics-host', '127.0.0.1', ...common], /running controllers/, imageRuntime),
        spawnCli('catalog', ['run', '--kubeconfig', kubeconfig, '--controllers', 'catalog', '--metrics-host', '127.0.0.1', ...common], /running controllers/, imageRuntime),
        spawnCli(
          'packageserver',
          ['packageserver', '--kubeconfig', kubeconfig, '--no-register', '--host', '127.0.0.1', '--port', '0', '--metrics-host', '127.0.0.1', ...common],
          /metrics, health and readiness on/,
          imageRuntime,
        ),
      ])
    : [up];
  return {
    client: new KubeClient({ kubeconfig: await readFile(kubeconfig, 'utf8') }),
    /** The processes that are OLM (in split mode, not the API server). */
    olmProcesses,
    apiServer: up,
    output: () => [up, ...olmProcesses.filter((each) => each !== up)].map((each) => each.output()).join('\n'),
    async stop() {
      for (const each of olmProcesses.filter((each) => each !== up)) await each.stop();
      await up.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Resident memory now and at its peak (Linux /proc), in bytes. */
async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kB = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kB('VmRSS'), peak: kB('VmHWM') };
}

/** CPU seconds (user + system) the process used so far. */
async function cpuSeconds(pid) {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Scrapes /metrics and /healthz every second: the worst event-loop block and p99, and the slowest /healthz answer. */
function watchHealth(operationsUrl) {
  const seen = { lagMaxSeconds: 0, lagP99Seconds: 0, healthzMaxMs: 0, scrapes: 0, p99s: [] };
  // Whether `olm up` ever stopped leading its Lease after it led (its leader_election_master_status went 1 -> 0).
  const lease = { led: false, lost: false };
  let running = true;
  let paused = false;
  const loop = (async () => {
    while (running) {
      if (paused) {
        await sleep(250);
        continue;
      }
      const startedAt = performance.now();
      try {
        await (await fetch(`${operationsUrl}/healthz`, { signal: AbortSignal.timeout(120_000) })).text();
        seen.healthzMaxMs = Math.max(seen.healthzMaxMs, performance.now() - startedAt);
        const metrics = await (await fetch(`${operationsUrl}/metrics`, { signal: AbortSignal.timeout(120_000) })).text();
        const value = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);
        seen.lagMaxSeconds = Math.max(seen.lagMaxSeconds, value('nodejs_eventloop_lag_max_seconds'));
        seen.lagP99Seconds = Math.max(seen.lagP99Seconds, value('nodejs_eventloop_lag_p99_seconds'));
        seen.p99s.push(value('nodejs_eventloop_lag_p99_seconds'));
        const leading = /^leader_election_master_status\{[^}]*\} (\S+)$/m.exec(metrics)?.[1];
        if (leading === '1') lease.led = true;
        else if (leading === '0' && lease.led) lease.lost = true;
        seen.scrapes += 1;
      } catch {
        seen.healthzMaxMs = Math.max(seen.healthzMaxMs, performance.now() - startedAt);
      }
      await sleep(1_000);
    }
  })();
  return {
    seen,
    lease,
    reset() {
      Object.assign(seen, { lagMaxSeconds: 0, lagP99Seconds: 0, healthzMaxMs: 0, scrapes: 0, p99s: [] });
    },
    /** Scrapes cost the scraped process CPU: none while CPU at rest is measured (Prometheus scrapes every 30 s or so). */
    pause: (value) => (paused = value),
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** watchHealth over every OLM process: the worst of them, and each one's. */
function watchAllHealth(processes) {
  const watched = processes.map((each) => ({ name: each.name, health: watchHealth(each.operationsUrl) }));
  const worst = (field) => Math.max(0, ...watched.map(({ health }) => health.seen[field]));
  return {
    get seen() {
      return { lagMaxSeconds: worst('lagMaxSeconds'), lagP99Seconds: worst('lagP99Seconds'), healthzMaxMs: worst('healthzMaxMs') };
    },
    /**
     * prom-client's p99 is per scrape (one second): one stall in a second makes that second's p99. So
     * besides the worst second: the share of seconds whose p99 was over 100 ms, and the 99th percentile
     * of the per-second p99s, over every process.
     */
    p99Seconds: () => {
      const all = watched.flatMap(({ health }) => health.seen.p99s).sort((a, b) => a - b);
      if (all.length === 0) return {};
      return { secondsOver100MsPercent: round((all.filter((value) => value > 0.1).length / all.length) * 100, 1), p99OfSecondsMs: round(all[Math.min(all.length - 1, Math.floor(all.length * 0.99))] * 1000) };
    },
    /** The longest block and worst p99 per process, in ms. */
    byProcess: () => Object.fromEntries(watched.map(({ name, health }) => [name, { blockMs: round(health.seen.lagMaxSeconds * 1000), p99Ms: round(health.seen.lagP99Seconds * 1000) }])),
    leaseLost: () => watched.some(({ health }) => health.lease.lost),
    reset: () => watched.forEach(({ health }) => health.reset()),
    pause: (value) => watched.forEach(({ health }) => health.pause(value)),
    stop: () => Promise.all(watched.map(({ health }) => health.stop())),
  };
}

/** Work-queue adds so far, by queue, summed over the processes. */
async function queueAdds(processes) {
  const adds = {};
  for (const { operationsUrl } of processes) {
    const metrics = await (await fetch(`${operationsUrl}/metrics`)).text();
    for (const match of metrics.matchAll(/^workqueue_adds_total\{name="([^"]+)"[^}]*\} (\S+)$/gm)) adds[match[1]] = (adds[match[1]] ?? 0) + Number(match[2]);
  }
  return adds;
}

/** Items waiting in every work queue of the processes (workqueue_depth summed). */
async function queueDepth(processes) {
  let depth = 0;
  for (const { operationsUrl } of processes) {
    const metrics = await (await fetch(`${operationsUrl}/metrics`)).text();
    for (const match of metrics.matchAll(/^workqueue_depth\{[^}]*\} (\S+)$/gm)) depth += Number(match[1]);
  }
  return depth;
}

/** RSS of the OLM processes together and each, in MB (in split mode the API server's apart). */
async function olmMemory(olm) {
  const each = await Promise.all(olm.olmProcesses.map(async ({ name, pid }) => [name, await memoryOf(pid)]));
  const sum = (field) => mb(each.reduce((total, [, memory]) => total + memory[field], 0));
  return {
    rssMb: sum('rss'),
    peakRssMb: sum('peak'),
    ...(split ? { rssMbByProcess: Object.fromEntries(each.map(([name, memory]) => [name, mb(memory.rss)])), apiServerRssMb: mb((await memoryOf(olm.apiServer.pid)).rss) } : {}),
  };
}

/** The copies of the operators' CSVs, counted from a watch (an informer in this process). */
async function watchCopies(client) {
  const informer = new Informer({ client, kind: csvKind, labelSelector: 'olm.copiedFrom=operators', pageSize: 2000 });
  informer.start();
  await informer.waitForSync(120_000);
  return { count: () => informer.indexer.size, stop: () => informer.stop() };
}

/** Runs `task` over `items`, `concurrency` at a time. */
async function inParallel(items, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

/** A small AllNamespaces operator created as a CSV (the example catalog has only three packages). */
function extraOperatorCsv(index) {
  const name = `bench-extra-${index}`;
  const labels = { 'app.kubernetes.io/name': name };
  return {
    ...csvKind,
    metadata: { name: `${name}.v1.0.0`, namespace: 'operators' },
    spec: {
      displayName: name,
      version: '1.0.0',
      installModes: ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({ type, supported: true })),
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [
            {
              name: `${name}-operator`,
              spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'manager', image: `registry.example.com/${name}:v1` }] } } },
            },
          ],
        },
      },
    },
  };
}

async function installOperators(client) {
  const names = [];
  for (const pkg of catalogPackages.slice(0, operatorCount)) {
    await client.create({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'Subscription',
      metadata: { name: pkg, namespace: 'operators' },
      spec: { name: pkg, channel: 'stable', source: 'acme-examples', sourceNamespace: 'olm' },
    });
  }
  for (let index = catalogPackages.length; index < operatorCount; index += 1) {
    const csv = extraOperatorCsv(index);
    await client.create(csv);
    names.push(csv.metadata.name);
  }
  await until(async () => {
    const csvs = (await client.list(csvKind, { namespace: 'operators' })).items;
    return csvs.filter((csv) => csv.status?.phase === 'Succeeded').length >= operatorCount;
  }, `${operatorCount} operators Succeeded`, 300_000);
}

/**
 * CPU (percent of one core) and API writes per second over a quiet window: 30 s after every work queue
 * is empty (the copies' own events handled), with the health scrapes paused.
 */
async function atRest(olm, health, windowMs = 10_000) {
  const version = async () => Number((await olm.client.list({ apiVersion: 'v1', kind: 'Namespace' }, { limit: 1 })).resourceVersion);
  const settling = performance.now();
  await until(async () => (await queueDepth(olm.olmProcesses)) === 0, 'work queues empty', 600_000);
  const settledSeconds = round((performance.now() - settling) / 1000, 1);
  // Then half a minute more: V8 collects and compacts the burst's garbage for seconds after the last
  // event (more so with --optimize-for-size), which is the burst's cost, not the resting one.
  await sleep(30_000);
  health.pause(true);
  const cpu = () => Promise.all(olm.olmProcesses.map(({ pid }) => cpuSeconds(pid)));
  const [cpuBefore, versionBefore] = [await cpu(), await version()];
  await sleep(windowMs);
  const [cpuAfter, versionAfter] = [await cpu(), await version()];
  health.pause(false);
  const percent = (index) => round(((cpuAfter[index] - cpuBefore[index]) / (windowMs / 1000)) * 100, 1);
  return {
    queuesEmptyAfterSeconds: settledSeconds,
    cpuPercentOfCore: round(olm.olmProcesses.reduce((total, _, index) => total + percent(index), 0), 1),
    ...(split ? { cpuPercentByProcess: Object.fromEntries(olm.olmProcesses.map(({ name }, index) => [name, percent(index)])) } : {}),
    writesPerSecond: round((versionAfter - versionBefore) / (windowMs / 1000), 1),
  };
}

const olm = await startOlm();
const health = watchAllHealth(olm.olmProcesses);
// Lost once the metric says so or a process logs it (the Lease is renewed every 2 s and expires after 15 s).
const leaseLost = () => health.leaseLost() || /lost the lease/.test(olm.output());
try {
  await installOperators(olm.client);
  const copies = await watchCopies(olm.client);
  const before = (await olm.client.list({ apiVersion: 'v1', kind: 'Namespace' })).items.length;
  const expected = () => operatorCount * (before + namespaceCount - 1);
  const addsBefore = await queueAdds(olm.olmProcesses);
  health.reset();
  const startedAt = performance.now();
  const waves = [];
  for (let first = 0; first < namespaceCount; first += waveSize) {
    const names = Array.from({ length: Math.min(waveSize, namespaceCount - first) }, (_, index) => `scale-${first + index}`);
    const waveStart = performance.now();
    await inParallel(names, createConcurrency, (name) => olm.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
    const target = operatorCount * (before + first + names.length - 1);
    await until(() => copies.count() >= target, `copies of wave ${waves.length + 1}`);
    waves.push(round((performance.now() - waveStart) / 1000, 1));
    // A line per wave: a run cut short (a long one on a busy machine) still tells how far it got.
    print({
      case: 'olm scale: wave converged',
      namespaces: first + names.length,
      operators: operatorCount,
      copies: copies.count(),
      convergedSeconds: round((performance.now() - startedAt) / 1000, 1),
      eventLoopBlockMaxMs: round(health.seen.lagMaxSeconds * 1000),
      eventLoopP99MaxMs: round(health.seen.lagP99Seconds * 1000),
      rssMb: (await olmMemory(olm)).rssMb,
      leaseLost: leaseLost(),
    });
  }
  const convergedSeconds = round((performance.now() - startedAt) / 1000, 1);
  const memory = await olmMemory(olm);
  const addsAfter = await queueAdds(olm.olmProcesses);
  const copyCount = copies.count();
  const addsPerCopy = Object.fromEntries(
    Object.entries(addsAfter)
      .map(([name, value]) => [name, round((value - (addsBefore[name] ?? 0)) / Math.max(1, copyCount), 2)])
      .filter(([, value]) => value > 0),
  );
  print({
    case: 'olm scale: N namespaces created -> N x M copied CSVs',
    split,
    namespaces: namespaceCount,
    operators: operatorCount,
    copies: copyCount,
    expectedCopies: expected(),
    convergedSeconds,
    waveSeconds: waves,
    eventLoopBlockMaxMs: round(health.seen.lagMaxSeconds * 1000),
    eventLoopP99MaxMs: round(health.seen.lagP99Seconds * 1000),
    ...health.p99Seconds(),
    healthzMaxMs: round(health.seen.healthzMaxMs),
    ...memory,
    ...(split ? { eventLoopByProcess: health.byProcess() } : {}),
    workQueueAddsPerCopy: addsPerCopy,
    leaseLost: leaseLost(),
    target: { eventLoopBlockMaxMs: 1000, eventLoopP99MaxMs: 100, rssMb: 1024 },
  });
  if (holdMs > 0) {
    print({ case: 'olm scale: holding', seconds: holdMs / 1000, pids: Object.fromEntries([olm.apiServer, ...olm.olmProcesses].map(({ name, pid }) => [name, pid])) });
    await sleep(holdMs);
  }
  health.reset();
  const rest = await atRest(olm, health);
  print({
    case: 'olm scale: at rest with all copies',
    namespaces: namespaceCount,
    operators: operatorCount,
    ...rest,
    eventLoopBlockMaxMs: round(health.seen.lagMaxSeconds * 1000),
    ...(await olmMemory(olm)),
    leaseLost: leaseLost(),
    target: { cpuPercentOfCore: 5 },
  });

  health.reset();
  const disabledAt = performance.now();
  await olm.client.patch({ apiVersion: 'operators.coreos.com/v1', kind: 'OLMConfig', name: 'cluster' }, { spec: { features: { disableCopiedCSVs: true } } });
  await until(() => copies.count() === 0, 'copies removed after disableCopiedCSVs');
  const removedSeconds = round((performance.now() - disabledAt) / 1000, 1);
  const disabledRest = await atRest(olm, health);
  const afterDisable = await olmMemory(olm);
  print({
    case: 'olm scale: disableCopiedCSVs -> every copy removed',
    namespaces: namespaceCount,
    operators: operatorCount,
    removed: copyCount,
    removedSeconds,
    copiesRemovedPerSecond: round(copyCount / Math.max(0.001, removedSeconds)),
    eventLoopBlockMaxMs: round(health.seen.lagMaxSeconds * 1000),
    healthzMaxMs: round(health.seen.healthzMaxMs),
    ...afterDisable,
    atRest: disabledRest,
    leaseLost: leaseLost(),
  });
  await copies.stop();
} catch (error) {
  print({ case: 'olm scale', error: String(error?.message ?? error), output: olm.output().slice(-4000) });
  process.exitCode = 1;
} finally {
  await health.stop();
  await olm.stop();
}
