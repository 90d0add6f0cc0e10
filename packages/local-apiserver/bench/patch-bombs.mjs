// Hostile patches against an in-process server: one JSON line per case with the answer, how long it
// took, the process's peak RSS and the longest event-loop block while it ran (what every other
// client of the server waited). The server runs in this process so that the block is measured where
// it happens; a patch is applied in one synchronous step.
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { startApiServer } from '../dist/index.js';

const token = 'bench-patch-token';

function send(agent, url, method, path, body, contentType) {
  return new Promise((resolve, reject) => {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) };
    const outgoing = request(`${url}${path}`, { method, agent, headers }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** 1 + 3 × `doublings` operations: a 100 KB value, then per level an empty object and two copies of the level below. */
function copyBomb(doublings) {
  const operations = [{ op: 'add', path: '/b0', value: { v: 'x'.repeat(100_000) } }];
  for (let level = 1; level <= doublings; level++) {
    operations.push({ op: 'add', path: `/b${level}`, value: {} }, { op: 'copy', from: `/b${level - 1}`, path: `/b${level}/l` }, { op: 'copy', from: `/b${level - 1}`, path: `/b${level}/r` });
  }
  return operations;
}

const jsonPatch = 'application/json-patch+json';
const cases = [
  { name: 'JSON patch copy bomb (121 operations, 40 doublings of 100 KB)', path: '/api/v1/namespaces/default/configmaps/bomb', body: copyBomb(40), type: jsonPatch },
  { name: 'JSON patch of 10,001 operations', path: '/api/v1/namespaces/default/configmaps/bomb', body: Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/data/a', value: '1' })), type: jsonPatch },
  { name: 'JSON patch of 10,000 test operations (allowed)', path: '/api/v1/namespaces/default/configmaps/bomb', body: Array.from({ length: 10_000 }, () => ({ op: 'test', path: '/data/a', value: '1' })), type: jsonPatch },
  {
    name: 'JSON patch copying 290 KB ten times (just under 3 MiB, allowed; dry run)',
    path: '/api/v1/namespaces/default/configmaps/bomb?dryRun=All',
    body: [{ op: 'add', path: '/data/big', value: 'y'.repeat(290_000) }, ...Array.from({ length: 10 }, (_, index) => ({ op: 'copy', from: '/data/big', path: `/data/c${index}` }))],
    type: jsonPatch,
  },
  {
    name: 'strategic merge patch of 5,000 containers by name (dry run)',
    path: '/apis/apps/v1/namespaces/default/deployments/smp?dryRun=All',
    body: { spec: { template: { spec: { containers: Array.from({ length: 5000 }, (_, index) => ({ name: `c${index}`, image: 'example.com/x:1' })) } } } },
    type: 'application/strategic-merge-patch+json',
  },
];

export async function patchBombs() {
  const server = await startApiServer({ port: 0, token });
  const agent = new Agent({ keepAlive: true });
  try {
    await send(agent, server.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bomb' }, data: { a: '1' } }, 'application/json');
    const template = { metadata: { labels: { app: 'smp' } }, spec: { containers: [{ name: 'main', image: 'example.com/main:1' }] } };
    await send(agent, server.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'smp' }, spec: { selector: { matchLabels: { app: 'smp' } }, template } }, 'application/json');
    for (const { name, path, body, type } of cases) {
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const started = performance.now();
      const answer = await send(agent, server.url, 'PATCH', path, body, type);
      const ms = performance.now() - started;
      delay.disable();
      let reason;
      try {
        reason = JSON.parse(answer.body).reason;
      } catch {
        reason = undefined;
      }
      console.log(
        JSON.stringify({
          case: name,
          status: answer.status,
          ...(reason !== undefined && answer.status >= 300 ? { reason } : {}),
          ms: Math.round(ms),
          longestEventLoopBlockMs: Math.round(delay.max / 1e6),
          rssBeforeMB: Math.round(rssBefore / 1048576),
          peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
        }),
      );
    }
  } finally {
    agent.destroy();
    await server.stop();
  }
}
