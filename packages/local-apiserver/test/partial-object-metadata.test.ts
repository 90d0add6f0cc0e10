import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer, ServedRequest } from '../src/index.js';
import { call, openWatch, startTestServer } from './helpers.js';

const asList = { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' };
const asObject = { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json' };

describe('PartialObjectMetadata output, as client-go metadata informers ask for it', () => {
  let server: ApiServer;
  const served: ServedRequest[] = [];

  beforeAll(async () => {
    server = await startTestServer({ onRequest: (request) => served.push(request) });
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'meta' } });
    await call(server, 'POST', '/api/v1/namespaces/meta/secrets', { metadata: { name: 'a', labels: { 'operators.coreos.com/db.meta': '' } }, stringData: { password: 'hunter2' } });
    await call(server, 'POST', '/api/v1/namespaces/meta/secrets', { metadata: { name: 'b' }, stringData: { password: 'hunter3' } });
  });

  afterAll(async () => {
    await server.stop();
  });

  it('lists objects as their metadata only, honouring label selectors and continue tokens', async () => {
    const list = await call(server, 'GET', '/api/v1/namespaces/meta/secrets?labelSelector=operators.coreos.com%2Fdb.meta', undefined, asList);
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toBe('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
    expect(list.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: expect.any(String) } });
    expect(list.body.items).toHaveLength(1);
    expect(Object.keys(list.body.items[0])).toEqual(['kind', 'apiVersion', 'metadata']);
    expect(list.body.items[0]).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a', namespace: 'meta', labels: { 'operators.coreos.com/db.meta': '' } } });
    expect(list.text).not.toContain('hunter');

    const page = await call(server, 'GET', '/api/v1/namespaces/meta/secrets?limit=1', undefined, asList);
    expect(page.body.items).toHaveLength(1);
    expect(page.body.metadata.continue).toEqual(expect.any(String));
  });

  it('gets one object and watches as PartialObjectMetadata', async () => {
    const object = await call(server, 'GET', '/api/v1/namespaces/meta/secrets/b', undefined, asObject);
    expect(object.body).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'b', namespace: 'meta' }) });

    const watch = openWatch(server, '/api/v1/namespaces/meta/secrets?watch=true', asObject);
    try {
      const events = await watch.waitFor(2);
      expect(events.map((event) => `${event.type} ${event.object.kind} ${event.object.metadata.name}`)).toEqual(['ADDED PartialObjectMetadata a', 'ADDED PartialObjectMetadata b']);
      expect(JSON.stringify(events)).not.toContain('hunter');
    } finally {
      watch.stop();
    }
  });

  it('refuses a form that does not fit the endpoint with 406 NotAcceptable, and keeps Table and full objects when asked first', async () => {
    const listAsObject = await call(server, 'GET', '/api/v1/namespaces/meta/secrets', undefined, { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' });
    expect(listAsObject.status).toBe(406);
    expect(listAsObject.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406, message: expect.stringMatching(/^you requested PartialObjectMetadata, but the requested object is a list/) });
    const objectAsList = await call(server, 'GET', '/api/v1/namespaces/meta/secrets/a', undefined, { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' });
    expect(objectAsList.status).toBe(406);
    expect(objectAsList.body.message).toMatch(/^you requested PartialObjectMetadataList, but the requested object is not a list/);

    const full = await call(server, 'GET', '/api/v1/namespaces/meta/secrets/a', undefined, { Accept: `application/json,${asObject.Accept}` });
    expect(full.body.kind).toBe('Secret');
    const table = await call(server, 'GET', '/api/v1/namespaces/meta/secrets', undefined, { Accept: `application/json;as=Table;v=v1;g=meta.k8s.io,${asList.Accept}` });
    expect(table.body.kind).toBe('Table');
  });

  it('reports every request answered, with its verb, resource, namespace, code and user', async () => {
    served.length = 0;
    await call(server, 'GET', '/api/v1/namespaces/meta/secrets?labelSelector=x%3Dy');
    await call(server, 'POST', '/api/v1/namespaces/meta/configmaps', { metadata: { name: 'c' } });
    await call(server, 'GET', '/api/v1/namespaces/meta/configmaps/missing');
    expect(served.map(({ verb, resource, namespace, name, code, user }) => ({ verb, resource, namespace, name, code, user }))).toEqual([
      { verb: 'list', resource: 'secrets', namespace: 'meta', name: '', code: 200, user: 'kubernetes-admin' },
      { verb: 'create', resource: 'configmaps', namespace: 'meta', name: '', code: 201, user: 'kubernetes-admin' },
      { verb: 'get', resource: 'configmaps', namespace: 'meta', name: 'missing', code: 404, user: 'kubernetes-admin' },
    ]);
    expect(served[0]!.query).toBe('labelSelector=x%3Dy');
  });
});
