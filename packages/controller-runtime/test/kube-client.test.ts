import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasErrorCode } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlreadyExists, isConflict, isNotFound, RuntimeErrorCodes } from '../src/errors.js';
import type { ApiWarning } from '../src/api-warnings.js';
import { KubeClient } from '../src/kube-client.js';
import { configMap, configMapKind, createNamespace, installToyCrd, startServer, toyKind } from './helpers.js';

let env: Awaited<ReturnType<typeof startServer>>;
let client: KubeClient;

beforeAll(async () => {
  env = await startServer();
  client = env.client();
  await createNamespace(client, 'kc');
});
afterAll(() => env?.stop());

describe('KubeClient against the local API server', () => {
  it('creates, reads, lists with a selector, pages, and deletes, as plain JSON', async () => {
    await client.create(configMap('kc', 'one', { a: '1' }, { app: 'x' }));
    await client.create(configMap('kc', 'two', { a: '2' }, { app: 'y' }));
    await client.create(configMap('kc', 'three', { a: '3' }, { app: 'x' }));
    const one = await client.get({ ...configMapKind, namespace: 'kc', name: 'one' });
    expect(typeof one.metadata?.['creationTimestamp']).toBe('string');
    const selected = await client.list(configMapKind, { namespace: 'kc', labelSelector: 'app=x' });
    expect(selected.items.map((item) => item.metadata?.name).sort()).toEqual(['one', 'three']);
    expect(selected.items[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(selected.resourceVersion).not.toBe('');
    const page = await client.list(configMapKind, { namespace: 'kc', limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.continue).toBeTruthy();
    const rest = await client.list(configMapKind, { namespace: 'kc', limit: 2, continue: page.continue });
    expect(rest.items).toHaveLength(1);
    await client.delete({ ...configMapKind, namespace: 'kc', name: 'two' });
    expect(await client.find({ ...configMapKind, namespace: 'kc', name: 'two' })).toBeUndefined();
  });

  it('reports API errors with stable codes and status helpers', async () => {
    const missing = await client.get({ ...configMapKind, namespace: 'kc', name: 'nope' }).catch((error: unknown) => error);
    expect(hasErrorCode(missing, RuntimeErrorCodes.kubeApi)).toBe(true);
    expect(isNotFound(missing)).toBe(true);
    const duplicate = await client.create(configMap('kc', 'one', {})).catch((error: unknown) => error);
    expect(isAlreadyExists(duplicate)).toBe(true);
    expect(isConflict(duplicate)).toBe(false);
    const stale = await client
      .replace({ ...configMap('kc', 'one', { a: 'x' }), metadata: { namespace: 'kc', name: 'one', resourceVersion: '1' } })
      .catch((error: unknown) => error);
    expect(isConflict(stale)).toBe(true);
    const unknown = await client.list({ apiVersion: 'nothing.example.com/v1', kind: 'Ghost' }).catch((error: unknown) => error);
    expect(hasErrorCode(unknown, RuntimeErrorCodes.unknownKind)).toBe(true);
  });

  it('server-side applies with a field manager, creating when absent', async () => {
    const applied = await client.apply(configMap('kc', 'applied', { k: 'v' }), { fieldManager: 'olm-test', force: true });
    expect(applied.data).toEqual({ k: 'v' });
    const managers = (applied.metadata?.['managedFields'] as Array<{ manager: string }> | undefined)?.map((entry) => entry.manager);
    expect(managers).toContain('olm-test');
    const again = await client.apply(configMap('kc', 'applied', { k: 'v2' }), { fieldManager: 'olm-test', force: true });
    expect(again.data).toEqual({ k: 'v2' });
  });


  it('keeps working across an API server restart (pooled connections are replaced)', async () => {
    const namespaceReference = { apiVersion: 'v1', kind: 'Namespace', name: 'default' };
    expect((await client.get(namespaceReference)).metadata?.name).toBe('default');
    await env.restart();
    expect((await client.get(namespaceReference)).metadata?.name).toBe('default');
    client.close();
    expect((await client.get(namespaceReference)).metadata?.name).toBe('default');
  });

  it('hands API warnings to the handler of the client that made the request, and only to it', async () => {
    // The test before restarted the (in-memory) server: start from a fresh namespace.
    client = env.client();
    await createNamespace(client, 'kw');
    await installToyCrd(client);
    const parentWarnings: ApiWarning[] = [];
    const parent = new KubeClient({ kubeconfig: env.kubeconfig, onWarning: (warning) => parentWarnings.push(warning) });
    // No fieldValidation is sent, so the server keeps the object and warns about fields its schema lacks.
    const created = await parent.create({ ...toyKind, metadata: { namespace: 'kw', name: 'parent' }, spec: { value: 'v', colour: 'red' } });
    expect(created['spec']).toEqual({ value: 'v' });
    expect(parentWarnings).toEqual([{ code: 299, agent: '-', text: 'unknown field "spec.colour"' }]);

    // Two views used at once each see their own request's warnings; the parent sees neither.
    const seen: Record<string, string[]> = { a: [], b: [] };
    const views = { a: parent.withWarningHandler((warning) => seen['a']!.push(warning.text)), b: parent.withWarningHandler((warning) => seen['b']!.push(warning.text)) };
    await Promise.all([
      views.a.create({ ...toyKind, metadata: { namespace: 'kw', name: 'a' }, spec: { value: 'a', size: 1, shape: 'round' } }),
      views.b.create({ ...toyKind, metadata: { namespace: 'kw', name: 'b' }, spec: { value: 'b', weight: 2 } }),
      views.a.replace({ ...(await parent.get({ ...toyKind, namespace: 'kw', name: 'parent' })), spec: { value: 'w', age: 3 } }),
    ]);
    expect(seen['a']!.sort()).toEqual(['unknown field "spec.age"', 'unknown field "spec.shape"', 'unknown field "spec.size"']);
    expect(seen['b']).toEqual(['unknown field "spec.weight"']);
    expect(parentWarnings).toHaveLength(1);
    // A request without warnings calls no handler.
    await views.b.get({ ...toyKind, namespace: 'kw', name: 'b' });
    expect(seen['b']).toHaveLength(1);

    // Closing a view leaves the parent's connections alone; a handler that throws fails no request.
    views.a.close();
    const throwing = parent.withWarningHandler(() => {
      throw new Error('handler bug');
    });
    const patched = await throwing.patch({ ...toyKind, namespace: 'kw', name: 'b' }, { spec: { value: 'c', extra: true } });
    expect(patched['spec']).toEqual({ value: 'c' });
    expect((await parent.get({ ...toyKind, namespace: 'kw', name: 'a' })).metadata?.name).toBe('a');
    parent.close();
  });
});

describe('KubeClient against a misbehaving server', () => {
  // A plain HTTP server whose answer each test chooses; the kubeconfig needs no credentials for it.
  let handler: (request: IncomingMessage, response: ServerResponse) => void = () => undefined;
  let server: Server;
  let kubeconfig: string;
  beforeAll(async () => {
    server = createServer((request, response) => handler(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    kubeconfig = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: {} }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const namespaceReference = { apiVersion: 'v1', kind: 'Namespace', name: 'default' };
  const discovery = { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['get'] }] };
  const answer = (request: IncomingMessage, response: ServerResponse, object: () => void) => {
    if (request.url === '/api/v1') response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(discovery));
    else object();
  };

  it('sends the body with its length and reads every Warning header', async () => {
    const received: Array<{ method?: string; length?: string; body: string }> = [];
    handler = (request, response) =>
      answer(request, response, () => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        request.on('end', () => {
          received.push({ method: request.method, length: request.headers['content-length'], body });
          response.setHeader('warning', ['299 - "first"', '299 - "second, with a comma"']);
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...namespaceReference, metadata: { name: 'default', labels: { zone: 'ü' } } }));
        });
      });
    const warnings: string[] = [];
    const client = new KubeClient({ kubeconfig, onWarning: (warning) => warnings.push(warning.text) });
    const patched = await client.patch(namespaceReference, { metadata: { labels: { zone: 'ü' } } });
    expect(patched.metadata?.labels).toEqual({ zone: 'ü' });
    expect(received).toEqual([{ method: 'PATCH', length: String(Buffer.byteLength('{"metadata":{"labels":{"zone":"ü"}}}')), body: '{"metadata":{"labels":{"zone":"ü"}}}' }]);
    expect(warnings).toEqual(['first', 'second, with a comma']);
    client.close();
  });

  it('fails a request the server never answers once the timeout passes', async () => {
    handler = (request, response) => answer(request, response, () => undefined);
    const client = new KubeClient({ kubeconfig, requestTimeoutMs: 300 });
    await expect(client.get(namespaceReference)).rejects.toMatchObject({ code: RuntimeErrorCodes.kubeUnreachable, message: expect.stringMatching(/^GET \/api\/v1\/namespaces\/default failed: .*(abort|timeout)/i) });
    client.close();
  });

  it("ends a request the server never answers when the caller's signal aborts, long before the timeout", async () => {
    handler = (request, response) => answer(request, response, () => undefined);
    const client = new KubeClient({ kubeconfig, requestTimeoutMs: 600_000 });
    const caller = new AbortController();
    const listing = client.list({ apiVersion: 'v1', kind: 'Namespace' }, { signal: caller.signal });
    setTimeout(() => caller.abort(), 50);
    await expect(listing).rejects.toMatchObject({ code: RuntimeErrorCodes.kubeUnreachable, message: expect.stringMatching(/^GET \/api\/v1\/namespaces failed: .*abort/i) });
    client.close();
  });

  it('fails a response cut off in the middle of its body', async () => {
    handler = (request, response) =>
      answer(request, response, () => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        response.write('{"kind":"Namespace"');
        setTimeout(() => response.socket?.destroy(), 20);
      });
    const client = new KubeClient({ kubeconfig, requestTimeoutMs: 5_000 });
    await expect(client.get(namespaceReference)).rejects.toMatchObject({ code: RuntimeErrorCodes.kubeUnreachable, message: expect.stringMatching(/^GET \/api\/v1\/namespaces\/default failed: .*(hang up|aborted|ECONNRESET)/i) });
    client.close();
  });
});
