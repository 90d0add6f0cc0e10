import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, startTestServer } from './helpers.js';

const cms = '/api/v1/namespaces/default/configmaps';
const polluted = () => Object.keys(Object.prototype).concat(Object.getOwnPropertyNames(Object.prototype).filter((name) => name.startsWith('polluted')));

let server: ApiServer;
beforeAll(async () => {
  server = await startTestServer();
  await call(server, 'POST', cms, { metadata: { name: 'target' }, data: { a: '1' } });
});
afterAll(() => server?.stop());

describe('hostile request bodies', () => {
  it('treats JSON patch paths through __proto__, constructor or prototype as ordinary (missing) fields', async () => {
    for (const path of ['/__proto__/polluted', '/metadata/__proto__/polluted', '/constructor/prototype/polluted', '/data/prototype/x']) {
      const response = await call(server, 'PATCH', `${cms}/target`, [{ op: 'add', path, value: 'yes' }], { 'Content-Type': 'application/json-patch+json' });
      expect(response.status, path).toBe(422);
      expect(response.body.reason).toBe('Invalid');
      expect(response.body.message).toContain(`doc is missing path: "${path}"`);
    }
    const copied = await call(server, 'PATCH', `${cms}/target`, [{ op: 'copy', from: '/__proto__', path: '/data/x' }], { 'Content-Type': 'application/json-patch+json' });
    expect(copied.status).toBe(422);
    expect(polluted()).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('stores a __proto__ key sent in merge, strategic merge and apply patches and in created objects as a field', async () => {
    const attempts: Array<[string, string, string, string]> = [
      ['POST', cms, 'application/json', '{"metadata":{"name":"created"},"data":{"__proto__":"create"}}'],
      ['PATCH', `${cms}/created`, 'application/merge-patch+json', '{"data":{"__proto__":"merge"}}'],
      ['PATCH', `${cms}/created`, 'application/strategic-merge-patch+json', '{"data":{"__proto__":"smp"}}'],
      ['PATCH', `${cms}/created?fieldManager=yaml&force=true`, 'application/apply-patch+yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: created\ndata:\n  __proto__: apply\n'],
    ];
    for (const [method, path, type, body] of attempts) {
      const response = await call(server, method, path, body, { 'Content-Type': type });
      expect(response.status, type).toBeLessThan(300);
      expect(Object.hasOwn(response.body.data, '__proto__'), type).toBe(true);
      expect(Object.getPrototypeOf(response.body.data), type).toBe(Object.prototype);
    }
    expect(polluted()).toEqual([]);
  });

  it('keeps constructor and prototype as ordinary data in merge patches, reaching no prototype', async () => {
    const response = await call(server, 'PATCH', `${cms}/target`, '{"data":{"constructor":"c","prototype":"p"}}', { 'Content-Type': 'application/merge-patch+json' });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ a: '1', constructor: 'c', prototype: 'p' });
    const smp = await call(server, 'PATCH', `${cms}/target`, '{"constructor":{"prototype":{"polluted":"smp"}}}', { 'Content-Type': 'application/strategic-merge-patch+json' });
    expect(smp.status).toBeLessThan(500);
    expect(polluted()).toEqual([]);
    expect((await call(server, 'GET', '/version')).status).toBe(200);
  });

  it('answers 400, not 500, to a body nested deeper than 1000 levels', async () => {
    const deep = `{"metadata":{"name":"deep"},"data":${'{"a":'.repeat(5000)}"x"${'}'.repeat(5000)}}`;
    const response = await call(server, 'POST', cms, deep);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/^the request body is nested too deeply: more than 1000 levels at data(\.a)+$/);
    const patch = await call(server, 'PATCH', `${cms}/target`, `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`, { 'Content-Type': 'application/merge-patch+json' });
    expect(patch.status).toBe(400);
  });
});
