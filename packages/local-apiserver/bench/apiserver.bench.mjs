// Benchmarks of the local API server over loopback HTTP (keep-alive), one JSON line per case.
// Run after a build: `pnpm bench` (node bench/apiserver.bench.mjs). Numbers depend on the machine.
// Write cases run with two clients: Node's http module with a keep-alive Agent (what Node programs
// use; it costs about as much CPU per request as the server), and a lean HTTP/1.1 client (one
// keep-alive socket per client, nothing else), whose numbers are bounded by the server.
// `serverCpuUsPerOp` is the server process's CPU time per request (Linux), which a busy shared
// machine disturbs less than the rate.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startApiServer } from '../dist/index.js';
import { patchBombs } from './patch-bombs.mjs';

const quick = process.env.BENCH_QUICK === '1';
/** Every request carries a credential: the admin's (the server is started with this token) unless a case says otherwise. */
const benchToken = 'bench-admin-token';
const scale = (n) => (quick ? Math.max(50, Math.floor(n / 10)) : n);

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function round(value) {
  return Math.round(value * 1000) / 1000;
}

function send(agent, url, method, path, body, contentType = 'application/json', onSent = undefined, token = benchToken) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const authorization = { Authorization: `Bearer ${token}` };
    const req = request(
      `${url}${path}`,
      { method, agent, headers: payload ? { ...authorization, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) } : authorization },
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

/** A minimal HTTP/1.1 client: one keep-alive socket, one request at a time, Content-Length responses. */
class LeanConnection {
  static async open(url, token = benchToken) {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    socket.setNoDelay(true);
    await new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new LeanConnection(socket, `${hostname}:${port}`, token);
  }

  constructor(socket, host, token) {
    this.socket = socket;
    this.host = host;
    this.token = token;
    this.buffer = Buffer.alloc(0);
    this.waiting = undefined;
    socket.on('data', (chunk) => this.receive(chunk));
    socket.on('error', (error) => this.waiting?.reject(error));
  }

  receive(chunk) {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) {
      this.waiting?.reject(new Error(`lean client: response without Content-Length: ${head}`));
      return;
    }
    const size = end + 4 + Number(length[1]);
    if (this.buffer.length < size) return;
    const body = this.buffer.subarray(end + 4, size).toString();
    this.buffer = this.buffer.subarray(size);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve({ status: Number(head.slice(9, 12)), body });
  }

  send(method, path, body, contentType = 'application/json') {
    const payload = body === undefined ? '' : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${this.host}\r\nAuthorization: Bearer ${this.token}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
    });
  }

  close() {
    this.socket.destroy();
  }
}

/** CPU time (ms) a process used so far, from /proc (Linux); undefined elsewhere. */
function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function measure(name, total, clients, operation, extra = {}, serverPid = undefined) {
  const latencies = [];
  let next = 0;
  let failures = 0;
  const cpuBefore = serverPid === undefined ? undefined : cpuMsOf(serverPid);
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
  const cpuAfter = serverPid === undefined ? undefined : cpuMsOf(serverPid);
  latencies.sort((a, b) => a - b);
  const serverCpu = cpuBefore !== undefined && cpuAfter !== undefined ? { serverCpuUsPerOp: Math.round(((cpuAfter - cpuBefore) * 1000) / total) } : {};
  console.log(JSON.stringify({ case: name, clients, ops: total, failures, opsPerSec: Math.round(total / seconds), p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)), ...serverCpu, ...extra }));
}

/** Starts the server (or another script printing its URL) in a child process, so client and server do not share one event loop. */
async function startServerProcess(options, script = './server-process.mjs') {
  const child = spawn(process.execPath, [new URL(script, import.meta.url).pathname, JSON.stringify({ token: benchToken, ...options })], { stdio: ['pipe', 'pipe', 'inherit'] });
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
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.on('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

const nodeHttpClient = 'node:http keep-alive Agent';
const leanClient = 'lean HTTP/1.1, one keep-alive socket per client';

/** `prepare` may set the server up and return the token the clients use (default: the admin's). */
async function writeCases(label, name, options, prepare = async () => benchToken, clientKinds = [nodeHttpClient, leanClient]) {
  const server = await startServerProcess(options);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const path = '/api/v1/namespaces/default/configmaps';
  try {
    const token = await prepare(server, agent);
    for (const client of clientKinds) {
      for (const clients of [1, 50]) {
        const connections = client === leanClient ? await Promise.all(Array.from({ length: clients }, () => LeanConnection.open(server.url, token))) : [];
        const call = (index, method, target, body, contentType) =>
          client === leanClient ? connections[index].send(method, target, body, contentType) : send(agent, server.url, method, target, body, contentType, undefined, token);
        const count = scale(clients === 1 ? 5000 : 10000);
        const prefix = `${name}-${client === leanClient ? 'lean' : 'http'}-c${clients}`;
        const extra = { client };
        try {
          // Unmeasured warm-up (JIT on both sides), so that the cases report the steady state.
          for (let index = 0; index < scale(1000); index++) {
            await call(0, 'POST', path, { metadata: { name: `${prefix}-warm-${index}` }, data: { value: String(index) } });
            await call(0, 'PATCH', `${path}/${prefix}-warm-${index}`, { data: { value: 'warm' } }, 'application/merge-patch+json');
          }
          await measure(`${label} create`, count, clients, (index, worker) => call(worker, 'POST', path, { metadata: { name: `${prefix}-${index}` }, data: { value: String(index) } }), extra, server.pid);
          await measure(
            `${label} update (merge patch)`,
            count,
            clients,
            (index, worker) => call(worker, 'PATCH', `${path}/${prefix}-${index}`, { data: { value: `updated-${index}` } }, 'application/merge-patch+json'),
            extra,
            server.pid,
          );
        } finally {
          for (const connection of connections) connection.close();
        }
      }
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
      const req = request(`${server.url}${path}?watch=true`, { agent, headers: { Authorization: `Bearer ${benchToken}` } }, (res) => {
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
  const server = await startApiServer({ port: 0, token: benchToken });
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

// BENCH_ONLY=writes|durable|watch|memory|patches runs one group.
const only = process.env.BENCH_ONLY;
const wanted = (group) => only === undefined || only === group;
/**
 * The loopback floor: a Node HTTP server that answers every request at once, driven as the write cases
 * drive the API server. Single-client write rates are judged against it: on a shared machine its
 * own rate moves with the load, and the ratio is what says how much the API server adds.
 */
async function loopbackFloor() {
  const server = await startServerProcess({}, './empty-server-process.mjs');
  const connection = await LeanConnection.open(server.url);
  try {
    const body = (index) => ({ metadata: { name: `floor-${index}` }, data: { value: String(index) } });
    for (let index = 0; index < scale(1000); index++) await connection.send('POST', '/floor', body(index));
    await measure('loopback floor: node:http answering at once (no API work)', scale(5000), 1, (index) => connection.send('POST', '/floor', body(index)), { client: leanClient }, server.pid);
  } finally {
    connection.close();
    await server.stop();
  }
}

/**
 * Sets up a ServiceAccount allowed to write ConfigMaps by one RoleBinding among many: 500 other
 * RoleBindings in its namespace and 200 ClusterRoleBindings for other subjects. Returns its token:
 * its requests go through RBAC (the admin's are allowed by system:masters without it).
 */
async function serviceAccountWriter(server, agent) {
  const admin = (method, path, body) =>
    send(agent, server.url, method, path, body).then((result) => {
      if (result.status >= 300) throw new Error(`${method} ${path}: ${result.status} ${result.body}`);
      return JSON.parse(result.body);
    });
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  await admin('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'writer' } });
  await admin('POST', `${rbac}/namespaces/default/roles`, { metadata: { name: 'configmap-writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch'] }] });
  for (let index = 0; index < 500; index++) {
    await admin('POST', `${rbac}/namespaces/default/rolebindings`, { metadata: { name: `other-${index}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-writer' }, subjects: [{ kind: 'User', name: `user-${index}` }] });
  }
  for (let index = 0; index < 200; index++) {
    await admin('POST', `${rbac}/clusterrolebindings`, { metadata: { name: `other-${index}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Group', name: `group-${index}` }] });
  }
  await admin('POST', `${rbac}/namespaces/default/rolebindings`, { metadata: { name: 'writer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-writer' }, subjects: [{ kind: 'ServiceAccount', name: 'writer' }] });
  const tokenRequest = await admin('POST', '/api/v1/namespaces/default/serviceaccounts/writer/token', { spec: {} });
  return tokenRequest.status.token;
}

if (wanted('writes')) {
  await loopbackFloor();
  await writeCases('memory', 'mem', {});
  await writeCases('memory, as a ServiceAccount through RBAC (700 other bindings)', 'rbac', {}, serviceAccountWriter, [leanClient]);
}
/** What one durable write costs at least on this disk: a small append and fdatasync, one after another. */
async function diskSyncCost(dataDir) {
  const handle = await open(join(dataDir, 'sync-probe'), 'a');
  const line = `${JSON.stringify({ t: 'put', event: { revision: 1, object: { metadata: { name: 'x'.repeat(300) } } } })}\n`;
  try {
    await measure('disk: append + fdatasync (the floor of a durable write)', scale(1000), 1, async () => {
      await handle.write(line);
      await handle.datasync();
      return { status: 200 };
    });
  } finally {
    await handle.close();
  }
}

if (wanted('durable')) {
  const dataDir = mkdtempSync(join(tmpdir(), 'olm-apiserver-bench-'));
  try {
    await diskSyncCost(dataDir);
    await writeCases('durable (dataDir, fsync)', 'durable', { dataDir });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
if (wanted('watch')) await watchLatency();
if (wanted('memory')) await memory();
if (wanted('patches')) await patchBombs();
