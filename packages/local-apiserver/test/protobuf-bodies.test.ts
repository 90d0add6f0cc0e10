import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { protobufMessage } from '../src/protobuf-wire.js';
import { call, installWidgetCrd, startTestServer } from './helpers.js';

/** Kubernetes protobuf request bodies over HTTP, as typed Go clients and kubectl's generators send them. */
const protobuf = 'application/vnd.kubernetes.protobuf';

/** `k8s\0` + runtime.Unknown { typeMeta { apiVersion, kind }, raw }. */
function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const typeMeta = protobufMessage((writer) => writer.string(1, apiVersion).string(2, kind));
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), protobufMessage((writer) => writer.bytes(1, typeMeta).bytes(2, raw))]);
}

/** ConfigMap { metadata { name, resourceVersion }, data } plus any extra raw fields. */
function configMap(name: string, data: Record<string, string>, resourceVersion?: string, extra: Buffer = Buffer.alloc(0)): Buffer {
  const metadata = protobufMessage((writer) => writer.string(1, name).string(6, resourceVersion));
  const fields = protobufMessage((writer) => {
    writer.bytes(1, metadata);
    for (const [key, value] of Object.entries(data)) writer.bytes(2, protobufMessage((entry) => entry.string(1, key).string(2, value)));
  });
  return envelope('v1', 'ConfigMap', Buffer.concat([fields, extra]));
}

async function send(server: ApiServer, method: string, path: string, body: Buffer): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${server.url}${path}`, { method, body, headers: { 'Content-Type': protobuf, Accept: `${protobuf}, application/json`, Authorization: `Bearer ${server.token}` } });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) };
}

describe('protobuf request bodies', () => {
  let server: ApiServer;
  const cms = '/api/v1/namespaces/default/configmaps';

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('creates an object and answers in JSON', async () => {
    const created = await send(server, 'POST', `${cms}?fieldManager=typed-client`, configMap('pb', { mode: 'fast' }));
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(created.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb', namespace: 'default' }, data: { mode: 'fast' } });
    expect(created.body.metadata.managedFields[0]).toMatchObject({ manager: 'typed-client', operation: 'Update' });
    expect((await call(server, 'GET', `${cms}/pb`)).body.data).toEqual({ mode: 'fast' });
  });

  it('replaces an object with optimistic concurrency like a JSON update', async () => {
    const current = (await call(server, 'GET', `${cms}/pb`)).body;
    const updated = await send(server, 'PUT', `${cms}/pb`, configMap('pb', { mode: 'slow' }, current.metadata.resourceVersion));
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ mode: 'slow' });
    const stale = await send(server, 'PUT', `${cms}/pb`, configMap('pb', { mode: 'stale' }, current.metadata.resourceVersion));
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ kind: 'Status', reason: 'Conflict' });
  });

  it('defaults an unset IntOrString targetPort, which Go clients send as 0, to the port', async () => {
    // ServicePort { port = 3, targetPort = 4 { type = 1: 0, intVal = 2: 0, strVal = 3: "" } } as gogo writes an unset value.
    const unsetTarget = Buffer.from([0x08, 0x00, 0x10, 0x00, 0x1a, 0x00]);
    const port = protobufMessage((writer) => writer.uint(3, 8080).bytes(4, unsetTarget));
    const service = protobufMessage((writer) => writer.bytes(1, protobufMessage((meta) => meta.string(1, 'api'))).bytes(2, protobufMessage((spec) => spec.bytes(1, port))));
    const created = await send(server, 'POST', '/api/v1/namespaces/default/services', envelope('v1', 'Service', service));
    expect(created.status).toBe(201);
    expect(created.body.spec.ports).toEqual([{ port: 8080, targetPort: 8080, protocol: 'TCP' }]);
  });

  it('drops fields this server does not know and says so in a Warning header', async () => {
    const unknown = protobufMessage((writer) => writer.string(99, 'from the future'));
    const created = await send(server, 'POST', cms, configMap('future', { a: '1' }, undefined, unknown));
    expect(created.status).toBe(201);
    expect(created.headers.get('warning')).toBe('299 - "protobuf field 99 of ConfigMap at the object is not known to this server and was dropped; send the object as JSON to keep it"');
    expect(Object.keys(created.body)).not.toContain('99');
  });

  it('reads protobuf DeleteOptions', async () => {
    const options = envelope('v1', 'DeleteOptions', protobufMessage((writer) => writer.string(5, 'All')));
    const dryRun = await send(server, 'DELETE', `${cms}/future`, options);
    expect(dryRun.status).toBe(200);
    expect((await call(server, 'GET', `${cms}/future`)).status).toBe(200);
    const orphan = envelope('v1', 'DeleteOptions', protobufMessage((writer) => writer.string(4, 'Sideways')));
    expect((await send(server, 'DELETE', `${cms}/future`, orphan)).body.message).toBe('propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"');
  });

  it('answers bad bodies with a Status and keeps serving', async () => {
    await installWidgetCrd(server);
    const cases: [string, string, Buffer, number, string, string][] = [
      ['custom resource', '/apis/example.com/v1/namespaces/default/widgets', envelope('example.com/v1', 'Widget', Buffer.alloc(0)), 415, 'UnsupportedMediaType', 'Widget (example.com/v1) cannot be sent as protobuf'],
      ['no prefix', cms, Buffer.from('{"metadata":{"name":"json"}}'), 400, 'BadRequest', 'does not start with the 4-byte prefix'],
      ['truncated body', cms, configMap('cut', { a: '1' }).subarray(0, -3), 400, 'BadRequest', 'error decoding the protobuf envelope (runtime.Unknown): truncated'],
      ['truncated object', cms, envelope('v1', 'ConfigMap', Buffer.from([0x0a, 0x05, 0x0a])), 400, 'BadRequest', 'error decoding protobuf ConfigMap (v1): metadata'],
      ['wrong kind for the path', cms, envelope('v1', 'Secret', Buffer.alloc(0)), 400, 'BadRequest', 'the kind in the data (Secret) does not match the expected kind (ConfigMap)'],
    ];
    for (const [name, path, body, code, reason, message] of cases) {
      const response = await send(server, 'POST', path, body);
      expect({ name, status: response.status }).toEqual({ name, status: code });
      expect(response.body).toMatchObject({ kind: 'Status', status: 'Failure', code, reason });
      expect(response.body.message).toContain(message);
    }
    expect((await call(server, 'GET', '/healthz')).text).toBe('ok');
    expect((await send(server, 'POST', cms, configMap('after', {}))).status).toBe(201);
  });
});
