import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSyntheticCatalog } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCatalogContent, startCatalogHttpServer, writeCatalogContent, type CatalogContentStore, type CatalogHttpServer } from '../src/index.js';
import { get, open } from './https-get.js';

// Big enough (≈ 20 MB) that a client which does not read keeps its request in flight.
let work: string;
let store: CatalogContentStore;
let server: CatalogHttpServer;
let all: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'catalog-http-limits-'));
  await writeCatalogContent(join(work, 'content'), generateSyntheticCatalog({ seed: 1, packages: 100, versionsPerPackage: 100 }));
  store = await openCatalogContent(join(work, 'content'));
  server = await startCatalogHttpServer({
    catalog: () => store,
    tls: false,
    limits: { maxInFlight: 3, maxInFlightPerClient: 2, maxUrlBytes: 256, retryAfterSeconds: 2 },
  });
  all = `${server.url}/catalogs/synthetic/api/v1/all`;
});

afterAll(async () => {
  await server?.stop();
  await store?.close();
  await rm(work, { recursive: true, force: true });
});

/** Retries while the server still counts requests whose connections were just destroyed. */
async function eventuallyOk(url: string, localAddress: string): Promise<number> {
  let status = 0;
  for (let attempt = 0; attempt < 100 && status !== 200; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    status = (await get(url, { localAddress, method: 'HEAD' })).status;
  }
  return status;
}

describe('request limits', () => {
  it('serves plain HTTP when asked', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.certificate).toBeUndefined();
  });

  it('429 with Retry-After past the requests in flight of one client, while another client is served', async () => {
    const held: IncomingMessage[] = [await open(all, { localAddress: '127.0.0.1' }), await open(all, { localAddress: '127.0.0.1' })];
    try {
      const refused = await get(all, { localAddress: '127.0.0.1' });
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('2');
      expect(refused.body.toString()).toBe('429 Too Many Requests: 2 requests already in flight from 127.0.0.1 (maxInFlightPerClient); retry after 2s\n');
      expect((await get(all, { localAddress: '127.0.0.2', method: 'HEAD' })).status).toBe(200);
    } finally {
      for (const response of held) response.destroy();
    }
    expect(await eventuallyOk(all, '127.0.0.1')).toBe(200);
  });

  it('429 past the requests in flight in total, from many clients each under its own limit', async () => {
    const held: IncomingMessage[] = [];
    try {
      for (const address of ['127.0.0.3', '127.0.0.4', '127.0.0.5']) held.push(await open(all, { localAddress: address }));
      const refused = await get(all, { localAddress: '127.0.0.6' });
      expect(refused.status).toBe(429);
      expect(refused.body.toString()).toBe('429 Too Many Requests: 3 requests already in flight in total (maxInFlight); retry after 2s\n');
    } finally {
      for (const response of held) response.destroy();
    }
    expect(await eventuallyOk(all, '127.0.0.6')).toBe(200);
  });

  it('names the limit as the caller configures it (a CLI flag)', async () => {
    const named = await startCatalogHttpServer({ catalog: () => store, tls: false, limits: { maxInFlightPerClient: 1 }, limitNames: { maxInFlightPerClient: '--http-max-in-flight-per-client' } });
    const url = `${named.url}/catalogs/synthetic/api/v1/all`;
    const held = await open(url);
    try {
      expect((await get(url)).body.toString()).toBe('429 Too Many Requests: 1 requests already in flight from 127.0.0.1 (--http-max-in-flight-per-client); retry after 1s\n');
    } finally {
      held.destroy();
      await named.stop();
    }
  });

  it('400 for a request target that is no URL, and keeps serving', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.end('GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect((await get(all, { method: 'HEAD' })).status).toBe(200);
  });

  it('414 for a request target past maxUrlBytes, naming the limit', async () => {
    const reply = await get(`${server.url}/catalogs/synthetic/api/v1/metas?name=${'x'.repeat(300)}`);
    expect(reply.status).toBe(414);
    expect(reply.body.toString()).toMatch(/^414 URI Too Long: the request target has \d+ bytes, the limit is 256 \(maxUrlBytes\)\n$/);
  });
});
