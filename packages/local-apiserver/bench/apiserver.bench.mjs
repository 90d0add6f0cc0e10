// Benchmarks of the local API server over loopback HTTP (keep-alive), one JSON line per case.
// Run after a build: `pnpm bench` (node bench/apiserver.bench.mjs). Numbers depend on the machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startApiServer } from '../dist/index.js';

const quick = process.env.BENCH_QUICK === '1';
const scale = (n) => (quick ? Math.max(50, Math.floor(n / 10)) : n);

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function round(value) {
  return Math.round(value * 1000) / 1000;
}

function send(agent, url, method, path, body, contentType = 'application/json', onSent = undefined) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${url}${path}`,
      { method, agent, headers: payload ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) } : {} },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    if (onSent) req.on('finish', onSent);
    if (payload) req.write(payload);
    req.end();
  });
}

async function measure(name, total, clients, operation, extra = {}) {
  const latencies = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (;;) {
        const index = next++;
        if (index >= total) return;
        const t0 = performance.now();
        const result = await operation(index, client);
        latencies.push(performance.now() - t0);
        if (result.status >= 300) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(JSON.stringify({ case: name, clients, ops: total, failures, opsPerSec: Math.round(total / seconds), p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)), ...extra }));
}

/** Starts the server in a child process (so client and server do not share one event loop). */
async function startServerProcess(options) {
  const child = spawn(process.execPath, [new URL('./server-process.mjs', import.meta.url).pathname, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk.toString();
      const newline = output.indexOf('\n');
      if (newline >= 0) resolve(output.slice(0, newline));
    });
    child.on('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.on('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

async function writeCases(label, name, options) {
  const server = await startServerProcess(options);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const path = '/api/v1/namespaces/default/configmaps';
  try {
    for (const clients of [1, 50]) {
      const count = scale(clients === 1 ? 5000 : 10000);
      const prefix = `${name}-c${clients}`;
      await measure(`${label} create`, count, clients, (index) => send(agent, server.url, 'POST', path, { metadata: { name: `${prefix}-${index}` }, data: { value: String(index) } }));
      const versions = new Map();
      await measure(`${label} update (merge patch)`, count, clients, async (index) => {
        const result = await send(agent, server.url, 'PATCH', `${path}/${prefix}-${index}`, { data: { value: `updated-${index}` } }, 'application/merge-patch+json');
        versions.set(index, result.status);
        return result;
      });
    }
  } finally {
    agent.destroy();
    await server.stop();
  }
}

async function watchLatency() {
  const server = await startServerProcess({});
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const path = '/api/v1/namespaces/default/configmaps';
  const issued = new Map();
  const delays = [];
  const total = scale(3000);
  const ratePerSecond = Number(process.env.BENCH_WATCH_RATE ?? 1000);
  try {
    let received = 0;
    let resolveAll;
    const all = new Promise((resolve) => (resolveAll = resolve));
    await new Promise((resolve, reject) => {
      const req = request(`${server.url}${path}?watch=true`, { agent }, (res) => {
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buffer += chunk;
          let newline = buffer.indexOf('\n');
          while (newline >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            const event = JSON.parse(line);
            const start = issued.get(event.object.metadata.name);
            if (start !== undefined) delays.push(performance.now() - start);
            if (++received === total) resolveAll();
            newline = buffer.indexOf('\n');
          }
        });
        resolve();
      });
      req.on('error', reject);
      req.end();
    });
    const started = performance.now();
    const writes = [];
    for (let index = 0; index < total; index++) {
      const due = started + (index * 1000) / ratePerSecond;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const name = `watched-${index}`;
      // Latency counts from the moment the write request is on the wire (not from agent queueing).
      writes.push(send(agent, server.url, 'POST', path, { metadata: { name } }, 'application/json', () => issued.set(name, performance.now())));
    }
    await Promise.all(writes);
    await all;
    const seconds = (performance.now() - started) / 1000;
    delays.sort((a, b) => a - b);
    console.log(JSON.stringify({ case: 'watch delivery (write sent → event received)', events: total, eventsPerSec: Math.round(total / seconds), p50Ms: round(percentile(delays, 50)), p99Ms: round(percentile(delays, 99)), maxMs: round(delays[delays.length - 1] ?? 0) }));
  } finally {
    agent.destroy();
    await server.stop();
  }
}

async function memory() {
  const count = scale(100_000);
  global.gc?.();
  const before = process.memoryUsage();
  const server = await startApiServer({ port: 0 });
  const type = server.cluster.registry.get('', 'configmaps');
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    server.cluster.create(type, 'v1', 'default', { metadata: { name: `mem-${index}`, labels: { app: 'bench' } }, data: { key: `value-${index}` } });
  }
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setImmediate(resolve));
  global.gc?.();
  const after = process.memoryUsage();
  const agent = new Agent({ keepAlive: true });
  const pagePath = '/api/v1/namespaces/default/configmaps?labelSelector=app%3Dbench&limit=500';
  await send(agent, server.url, 'GET', pagePath);
  const listStarted = performance.now();
  const page = await send(agent, server.url, 'GET', pagePath);
  const listMs = performance.now() - listStarted;
  agent.destroy();
  if (page.status !== 200) throw new Error(`list failed: ${page.status}`);
  console.log(
    JSON.stringify({
      case: 'memory with stored objects (in-process creates)',
      objects: count,
      createsPerSec: Math.round(count / seconds),
      heapUsedMB: Math.round((after.heapUsed - before.heapUsed) / 1048576),
      rssMB: Math.round(after.rss / 1048576),
      bytesPerObject: Math.round((after.heapUsed - before.heapUsed) / count),
      firstPageOf500Ms: round(listMs),
      gcExposed: typeof global.gc === 'function',
    }),
  );
  await server.stop();
}

// BENCH_ONLY=writes|durable|watch|memory runs one group.
const only = process.env.BENCH_ONLY;
const wanted = (group) => only === undefined || only === group;
if (wanted('writes')) await writeCases('memory', 'mem', {});
if (wanted('durable')) {
  const dataDir = mkdtempSync(join(tmpdir(), 'olm-apiserver-bench-'));
  try {
    await writeCases('durable (dataDir, fsync)', 'durable', { dataDir });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
if (wanted('watch')) await watchLatency();
if (wanted('memory')) await memory();
