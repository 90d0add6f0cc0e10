import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, startTestServer } from './helpers.js';

interface FloodSummary {
  watches: number;
  refused: { status: number; retryAfter: string | undefined; body: string }[];
  errors: string[];
}

/**
 * kube-apiserver does not count watches (long-running requests) against its in-flight limits, so a
 * client may hold many. The client runs in its own process, as a controller manager would: sharing
 * the server's event loop would pace its connections to the server's accepts.
 */
const cases = [
  { name: 'over HTTPS', options: { tls: true }, refused: 0 },
  { name: 'over HTTP', options: {}, refused: 0 },
  { name: 'over HTTP, beyond maxConnectionsPerClient: 600', options: { connectionLimits: { maxConnectionsPerClient: 600 } }, refused: 400 },
] as const;

describe.each(cases)('a thousand concurrent watches from one client process, $name', ({ options, refused }) => {
  let server: ApiServer;
  let directory: string;
  beforeAll(async () => {
    server = await startTestServer(options);
    directory = mkdtempSync(join(tmpdir(), 'olm-watch-flood-'));
    writeFileSync(join(directory, 'ca.crt'), server.caCertificate ?? '');
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('serves each one a watch stream or refuses it with 429 and Retry-After, never a reset, while other clients are served', async () => {
    const ca = server.caCertificate === undefined ? [] : [join(directory, 'ca.crt')];
    const child = spawn(process.execPath, [join(__dirname, 'fixtures/watch-flood.mjs'), server.url, server.token, '1000', ...ca], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      // Another client while the connections pour in.
      const other = await call(server, 'GET', '/api/v1/namespaces/default');
      expect(other.status).toBe(refused === 0 ? 200 : other.status === 429 ? 429 : 200);
      const summary = JSON.parse((await lines.next()).value as string) as FloodSummary;
      expect(summary.errors).toEqual([]);
      for (const refusal of summary.refused) {
        expect({ status: refusal.status, body: refusal.body.slice(0, 300) }).toMatchObject({ status: 429 });
        expect(refusal.retryAfter).toBe('1');
        expect(JSON.parse(refusal.body)).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
      }
      expect(summary.watches + summary.refused.length).toBe(1000);
      // The other client's request shares the address, so it may take one of the slots.
      expect(summary.refused.length - refused).toBeGreaterThanOrEqual(0);
      expect(summary.refused.length - refused).toBeLessThanOrEqual(1);
      // With every watch open, requests are still served, and the streams are live.
      expect((await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'seen', labels: { n: '999' } } })).status).toBe(201);
      if (refused === 0) expect(JSON.parse((await lines.next()).value as string)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'seen' } } });
      expect(await exited).toBe(0);
    } finally {
      child.kill();
    }
  }, 120_000);
});
