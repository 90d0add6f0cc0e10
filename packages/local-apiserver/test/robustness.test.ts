import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, installWidgetCrd, startTestServer } from './helpers.js';

const cms = '/api/v1/namespaces/default/configmaps';
const merge = { 'Content-Type': 'application/merge-patch+json' };

describe('bad input', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer();
    await installWidgetCrd(server);
    await call(server, 'POST', cms, { metadata: { name: 'target' } });
  });

  afterAll(async () => {
    await server.stop();
  });

  it('answers every malformed request with a Status and keeps serving', async () => {
    const cases: [string, string, unknown, Record<string, string>][] = [
      ['POST', cms, [1, 2], {}],
      ['POST', cms, 42, {}],
      ['POST', cms, 'null', {}],
      ['POST', cms, { metadata: 'nope' }, {}],
      ['POST', cms, { metadata: { name: 7 } }, {}],
      ['POST', cms, { metadata: { name: 'x1', labels: ['a'] } }, {}],
      ['POST', cms, { metadata: { name: 'x2', labels: { a: 5 } } }, {}],
      ['POST', cms, { metadata: { name: 'x3', labels: { 'bad key!': 'v' } } }, {}],
      ['POST', cms, { metadata: { name: 'x4', finalizers: 'one' } }, {}],
      ['POST', cms, { metadata: { name: 'x5', ownerReferences: [{ uid: 1 }] } }, {}],
      ['POST', cms, { metadata: { name: 'x6', managedFields: 'garbage' }, data: [] }, {}],
      ['POST', cms, { kind: 'Secret', metadata: { name: 'x7' } }, {}],
      ['POST', cms, { apiVersion: 'v2', metadata: { name: 'x8' } }, {}],
      ['POST', cms, 'a: [unclosed', { 'Content-Type': 'application/yaml' }],
      ['PUT', `${cms}/target`, { metadata: { name: 'other' } }, {}],
      ['PATCH', `${cms}/target`, '5', merge],
      ['PATCH', `${cms}/target`, [1], { 'Content-Type': 'application/strategic-merge-patch+json' }],
      ['PATCH', `${cms}/target`, { op: 'add' }, { 'Content-Type': 'application/json-patch+json' }],
      ['PATCH', `${cms}/target`, [{ op: 'explode', path: '/a' }], { 'Content-Type': 'application/json-patch+json' }],
      ['PATCH', `${cms}/target`, [{ op: 'add', path: 'no-slash', value: 1 }], { 'Content-Type': 'application/json-patch+json' }],
      ['PATCH', `${cms}/target?fieldManager=m`, 'key: [', { 'Content-Type': 'application/apply-patch+yaml' }],
      ['PATCH', `${cms}/target?fieldManager=m`, '- a\n- b\n', { 'Content-Type': 'application/apply-patch+yaml' }],
      ['PATCH', `${cms}/target`, '', merge],
      ['PATCH', `${cms}/target?force=true`, {}, merge],
      ['GET', `${cms}?continue=garbage`, undefined, {}],
      ['POST', `${cms}?fieldValidation=Loose`, { metadata: { name: 'x10' } }, {}],
      ['POST', `${cms}?dryRun=Some`, { metadata: { name: 'x9' } }, {}],
      ['DELETE', `${cms}/target`, { propagationPolicy: 'Sideways' }, {}],
      ['GET', '/api/v1/namespaces/default/configmaps/%E0%A4%A', undefined, {}],
      ['GET', '/api/v1/namespaces/default/configmaps/target/scale', undefined, {}],
      ['GET', '/api/v1/namespaces/default/namespaces', undefined, {}],
      ['PUT', '/version', {}, {}],
      ['POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: 'not an object' }, {}],
      ['POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { metadata: { name: 'x.y.z' }, spec: { versions: 'none' } }, {}],
      ['POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'd' }, spec: { replicas: 1 } }, {}],
      ['POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's' }, data: { key: 'not base64!' } }, {}],
      ['POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { metadata: { name: 'bads.example.com' }, spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'bads', kind: 'Bad' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } } } }] } }, {}],
    ];
    for (const [method, path, body, headers] of cases) {
      const response = await call(server, method, path, body, headers);
      expect({ method, path, body, status: response.status >= 400 && response.status < 500 }).toEqual({ method, path, body, status: true });
      expect(response.body).toMatchObject({ kind: 'Status', status: 'Failure', code: response.status });
    }
    const large = await call(server, 'POST', cms, { metadata: { name: 'huge' }, data: { blob: 'x'.repeat(4 * 1024 * 1024) } });
    expect(large.status).toBe(413);
    expect((await call(server, 'GET', `${cms}/target`)).status).toBe(200);
    expect((await call(server, 'GET', '/livez')).text).toBe('ok');
  });
});
