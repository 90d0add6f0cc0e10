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
  it('refuses JSON patch paths through __proto__, constructor or prototype with a 422 naming the path', async () => {
    for (const path of ['/__proto__/polluted', '/metadata/__proto__/polluted', '/constructor/prototype/polluted', '/data/prototype']) {
      const response = await call(server, 'PATCH', `${cms}/target`, [{ op: 'add', path, value: 'yes' }], { 'Content-Type': 'application/json-patch+json' });
      expect(response.status, path).toBe(422);
      expect(response.body.reason).toBe('Invalid');
      expect(response.body.message).toContain(`path "${path}"`);
    }
    const moved = await call(server, 'PATCH', `${cms}/target`, [{ op: 'copy', from: '/__proto__', path: '/data/x' }], { 'Content-Type': 'application/json-patch+json' });
    expect(moved.status).toBe(422);
    expect(polluted()).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('refuses a __proto__ key in merge, strategic merge and apply patches and in created objects, naming the field', async () => {
    const attempts: Array<[string, string, string, string]> = [
      ['PATCH', `${cms}/target`, 'application/merge-patch+json', '{"__proto__":{"polluted":"merge"}}'],
      ['PATCH', `${cms}/target`, 'application/strategic-merge-patch+json', '{"metadata":{"labels":{"__proto__":{"polluted":"smp"}}}}'],
      ['PATCH', `${cms}/target`, 'application/apply-patch+yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: target\ndata:\n  __proto__:\n    polluted: apply\n'],
      ['POST', cms, 'application/json', '{"metadata":{"name":"created"},"data":{"__proto__":{"polluted":"create"}}}'],
    ];
    for (const [method, path, type, body] of attempts) {
      const response = await call(server, method, path, body, { 'Content-Type': type, ...(type === 'application/apply-patch+yaml' ? {} : {}) });
      expect(response.status, type).toBe(422);
      expect(response.body.message).toMatch(/(metadata\.labels|data)?\.?__proto__: Forbidden: the field name "__proto__" is not allowed/);
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
