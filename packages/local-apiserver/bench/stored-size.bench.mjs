// What a client sending item-3-sized writes costs the server: many near-limit ConfigMaps and aliased
// YAML bodies, against a server with a data directory in its own process. One JSON line per case:
// what was accepted, the server's peak RSS and its longest event-loop block. Run after a build.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const quick = process.env.BENCH_QUICK === '1';
const token = 'bench-admin-token';
const MiB = 1024 * 1024;

async function withServer(run) {
  const dataDir = mkdtempSync(join(tmpdir(), 'olm-size-bench-'));
  const child = spawn(process.execPath, [new URL('./measured-server-process.mjs', import.meta.url).pathname, JSON.stringify({ dataDir, token })], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = [];
  let waiting;
  child.stdout.setEncoding('utf8');
  let buffered = '';
  child.stdout.on('data', (text) => {
    buffered += text;
    for (let index = buffered.indexOf('\n'); index >= 0; index = buffered.indexOf('\n')) {
      lines.push(buffered.slice(0, index));
      buffered = buffered.slice(index + 1);
      waiting?.();
    }
  });
  const nextLine = async () => {
    while (lines.length === 0) await new Promise((resolve) => (waiting = resolve));
    return lines.shift();
  };
  try {
    const url = await nextLine();
    const result = await run(url);
    child.kill('SIGTERM');
    const stats = JSON.parse(await nextLine());
    return { ...result, logMiB: Math.round(statSync(join(dataDir, 'store.jsonl')).size / MiB), ...stats };
  } finally {
    child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function post(url, body, contentType) {
  const response = await fetch(`${url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType }, body });
  await response.arrayBuffer();
  return response.status;
}

/** Sends `count` bodies, `concurrency` at a time; counts answers by status. */
async function sendAll(url, count, concurrency, bodyOf, contentType) {
  const statuses = {};
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const status = await post(url, bodyOf(next++), contentType);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { sent: count, statuses, seconds: Math.round(performance.now() - started) / 1000 };
}

const nearLimit = quick ? 8 : 48;
console.log(
  JSON.stringify({
    case: 'near-limit ConfigMaps (1 MiB - 1 KiB of data each), 4 clients',
    ...(await withServer((url) => sendAll(url, nearLimit, 4, (index) => JSON.stringify({ metadata: { name: `near-${index}` }, data: { blob: 'x'.repeat(MiB - 1024) } }), 'application/json'))),
  }),
);

// 1 MB once, 60 times by alias: 60 MB written out, under the old 64 MiB expansion cap.
const aliases = Array.from({ length: 60 }, (_, index) => `  k${index}: *s`).join('\n');
const aliased = (index) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aliased-${index}}\ndata:\n  s: &s "${'x'.repeat(1_000_000)}"\n${aliases}\n`;
console.log(
  JSON.stringify({
    case: 'aliased YAML bodies (1 MB expanding to 60 MB), 4 clients',
    ...(await withServer((url) => sendAll(url, quick ? 8 : 40, 4, aliased, 'application/yaml'))),
  }),
);
