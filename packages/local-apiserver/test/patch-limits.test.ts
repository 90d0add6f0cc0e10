import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, startTestServer } from './helpers.js';

const configMap = '/api/v1/namespaces/default/configmaps/bomb-target';
const jsonPatch = { 'Content-Type': 'application/json-patch+json' };

/** 121 operations: a 100 KB value, then 40 times an empty object and two copies of the previous level into it. */
function copyBomb(doublings: number): unknown[] {
  const operations: unknown[] = [{ op: 'add', path: '/b0', value: { v: 'x'.repeat(100_000) } }];
  for (let level = 1; level <= doublings; level++) {
    operations.push({ op: 'add', path: `/b${level}`, value: {} });
    operations.push({ op: 'copy', from: `/b${level - 1}`, path: `/b${level}/l` });
    operations.push({ op: 'copy', from: `/b${level - 1}`, path: `/b${level}/r` });
  }
  return operations;
}

describe('JSON patch bounds (kube-apiserver: 10,000 operations, 3 MiB of copies)', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startTestServer();
    expect((await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bomb-target' }, data: { a: '1' } })).status).toBe(201);
  });
  afterAll(() => server?.stop());

  it('refuses a copy bomb with 422 naming the accumulated size and the limit, serving another client meanwhile, memory bounded', async () => {
    const rssBefore = process.memoryUsage().rss;
    const [bomb, other] = await Promise.all([call(server, 'PATCH', configMap, copyBomb(40), jsonPatch), call(server, 'GET', '/api/v1/namespaces/default/configmaps/bomb-target')]);
    expect(bomb.status).toBe(422);
    expect(bomb.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
    expect(bomb.body.message).toMatch(/Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728; split the patch into several requests$/);
    expect(other.status).toBe(200);
    expect(other.body.data).toEqual({ a: '1' });
    // Without the bound the document doubles 40 times (about 100 TB); with it, a few copies of 3 MiB at most.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
    expect((await call(server, 'GET', configMap)).body.metadata.resourceVersion).toBe(other.body.metadata.resourceVersion);
  });

  it('still applies copies that stay under the limit', async () => {
    const response = await call(
      server,
      'PATCH',
      configMap,
      [
        // Under the copy limit and, copied, still under kube's 1 MiB of ConfigMap data.
        { op: 'add', path: '/data/big', value: 'y'.repeat(500_000) },
        { op: 'copy', from: '/data/big', path: '/data/copy' },
      ],
      jsonPatch,
    );
    expect(response.status).toBe(200);
    expect(response.body.data.copy).toHaveLength(500_000);
  });

  it('refuses more than 10,000 operations with 413 RequestEntityTooLarge, as kube-apiserver does', async () => {
    const operations = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/data/a', value: '1' }));
    const response = await call(server, 'PATCH', configMap, operations, jsonPatch);
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    expect(response.body.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001; split the patch into several requests');
    const allowed = await call(server, 'PATCH', configMap, operations.slice(1), jsonPatch);
    expect(allowed.status).toBe(200);
  });
});
