import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { ApiException, CoreV1Api } from '@kubernetes/client-node';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiServer, ApiServerOptions } from '../src/index.js';
import { call, eventually, installWidgetCrd, kubeConfigOf, startTestServer } from './helpers.js';

const cms = '/api/v1/namespaces/default/configmaps';
const MiB = 1024 * 1024;

describe('stored object size limits (kube-apiserver and etcd)', () => {
  const servers: ApiServer[] = [];
  const directories: string[] = [];
  const start = async (options: ApiServerOptions = {}) => {
    const server = await startTestServer(options);
    servers.push(server);
    return server;
  };
  const temporary = () => {
    const directory = mkdtempSync(join(tmpdir(), 'olm-apiserver-sizes-'));
    directories.push(directory);
    return directory;
  };
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('refuses a 2 MB ConfigMap from the real client with kube\'s 422, and stores one of exactly 1 MiB', async () => {
    const server = await start();
    const core = kubeConfigOf(server).makeApiClient(CoreV1Api);
    const refused = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'big' }, data: { blob: 'x'.repeat(2_000_000) } } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApiException);
    const { code, body } = refused as ApiException<string>;
    expect(code).toBe(422);
    const status = JSON.parse(body) as { reason: string; message: string; details: { causes: unknown[] } };
    expect(status.reason).toBe('Invalid');
    expect(status.message).toBe('ConfigMap "big" is invalid: data: Too long: must have at most 1048576 bytes');
    expect(status.details.causes).toEqual([{ reason: 'FieldValueTooLong', message: 'Too long: must have at most 1048576 bytes', field: 'data' }]);

    const atLimit = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'at-limit' }, data: { a: 'x'.repeat(MiB / 2), b: 'y'.repeat(MiB / 2) } } });
    expect(atLimit.metadata?.name).toBe('at-limit');
  });

  it('counts data and binaryData together, and a Secret\'s decoded data and stringData', async () => {
    const server = await start();
    const half = Buffer.alloc(MiB / 2 + 1).toString('base64');
    const mixed = await call(server, 'POST', cms, { metadata: { name: 'mixed' }, data: { a: 'x'.repeat(MiB / 2) }, binaryData: { b: half } });
    expect(mixed.status).toBe(422);
    const secrets = '/api/v1/namespaces/default/secrets';
    const encoded = await call(server, 'POST', secrets, { metadata: { name: 'encoded' }, data: { a: Buffer.alloc(MiB + 1).toString('base64') } });
    expect([encoded.status, (encoded.body as { message: string }).message]).toEqual([422, 'Secret "encoded" is invalid: data: Too long: must have at most 1048576 bytes']);
    // 1 MiB decoded is 1.33 MiB of base64: still accepted.
    expect((await call(server, 'POST', secrets, { metadata: { name: 'whole' }, data: { a: Buffer.alloc(MiB).toString('base64') } })).status).toBe(201);
    expect((await call(server, 'POST', secrets, { metadata: { name: 'plain' }, stringData: { a: 'x'.repeat(MiB + 1) } })).status).toBe(422);
  });

  it('refuses any object over etcd\'s request limit as kube-apiserver does (500, "etcdserver: request is too large")', async () => {
    const server = await start();
    await installWidgetCrd(server);
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    const create = (name: string, bytes: number) => call(server, 'POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { color: 'x'.repeat(bytes) } });
    await eventually(async () => expect((await create('small', 10)).status).toBe(201));
    const refused = await create('huge', 1.6 * MiB);
    expect(refused.status).toBe(500);
    const status = refused.body as { reason?: string; message: string };
    expect(status.reason).toBeUndefined();
    expect(status.message).toMatch(/^etcdserver: request is too large: the object takes \d+ bytes serialized, more than the limit of 1572864 bytes \(the server option maxStoredObjectBytes/);
    expect((await call(server, 'GET', `${widgets}/huge`)).status).toBe(404);
    // An update that grows an object past the limit is refused too, and leaves it as it was.
    const grown = await call(server, 'PATCH', `${widgets}/small`, { spec: { color: 'y'.repeat(1.6 * MiB) } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(grown.status).toBe(500);
    expect(((await call(server, 'GET', `${widgets}/small`)).body as { spec: { color: string } }).spec.color).toBe('x'.repeat(10));
  });

  it('takes the limits as options', async () => {
    const server = await start({ maxRequestBodyBytes: 64 * 1024, objectSizeLimits: { maxDataBytes: 1000, maxStoredObjectBytes: 20_000 } });
    const overData = await call(server, 'POST', cms, { metadata: { name: 'a' }, data: { a: 'x'.repeat(1001) } });
    expect((overData.body as { message: string }).message).toBe('ConfigMap "a" is invalid: data: Too long: must have at most 1000 bytes');
    const overStored = await call(server, 'POST', cms, { metadata: { name: 'b', annotations: { note: 'x'.repeat(30_000) } } });
    expect([overStored.status, (overStored.body as { message: string }).message]).toEqual([500, expect.stringContaining('more than the limit of 20000 bytes')]);
    const overBody = await call(server, 'POST', cms, { metadata: { name: 'c', annotations: { note: 'x'.repeat(70_000) } } });
    expect([overBody.status, (overBody.body as { reason: string; message: string }).reason, (overBody.body as { message: string }).message]).toEqual([
      413,
      'RequestEntityTooLarge',
      'Request entity too large: limit is 65536',
    ]);
  });

  it('counts a YAML body\'s aliases, written out, against the request body limit', async () => {
    const server = await start();
    // 100 KB once, 40 times by alias: a 100 KB body that stores as 4 MB (65 MB took 650 aliases of the same).
    const value = 'x'.repeat(100_000);
    const yaml = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: aliased',
      'data:',
      `  k0: &v "${value}"`,
      ...Array.from({ length: 39 }, (_, index) => `  k${index + 1}: *v`),
    ].join('\n');
    const response = await call(server, 'POST', cms, yaml, { 'Content-Type': 'application/yaml' });
    expect(response.status).toBe(400);
    expect((response.body as { message: string }).message).toContain('with its aliases expanded it takes more than 3145728 bytes (the request body limit, server option maxRequestBodyBytes)');
    expect((await call(server, 'GET', `${cms}/aliased`)).status).toBe(404);
    // Aliases that stay small are fine.
    const small = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: small', 'data:', '  a: &v "1"', '  b: *v'].join('\n');
    expect((await call(server, 'POST', cms, small, { 'Content-Type': 'application/yaml' })).status).toBe(201);
  });

  it('restarts on a data dir holding many near-limit objects sent by the real client', async () => {
    const dataDir = temporary();
    const first = await start({ dataDir });
    const core = kubeConfigOf(first).makeApiClient(CoreV1Api);
    for (let index = 0; index < 12; index++) {
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `near-${index}` }, data: { blob: String(index).padEnd(MiB - 10, 'x') } } });
    }
    await first.stop();
    expect(statSync(join(dataDir, 'store.jsonl')).size).toBeGreaterThan(12 * MiB);
    const second = await start({ dataDir });
    const list = await kubeConfigOf(second).makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: 'default' });
    expect(list.items.filter((item) => item.metadata?.name?.startsWith('near-'))).toHaveLength(12);
  });
});
