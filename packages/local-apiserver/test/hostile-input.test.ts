import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, startTestServer } from './helpers.js';

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A CRD `patterns.example.com` whose spec fields carry the given patterns. */
function crdWithPatterns(plural: string, patterns: Record<string, string>): unknown {
  const properties = Object.fromEntries(Object.entries(patterns).map(([field, pattern]) => [field, { type: 'string', pattern }]));
  const kind = `${plural[0]?.toUpperCase()}${plural.slice(1, -1)}`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } }],
    },
  };
}

describe('hostile regular expressions', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  it('answers a create against a catastrophically backtracking CRD pattern with 422, while serving other clients', async () => {
    const created = await call(server, 'POST', crds, crdWithPatterns('hostiles', { name: '^(a+)+$' }));
    expect(created.status).toBe(201);
    await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bystander' } });
    const path = '/apis/example.com/v1/namespaces/default/hostiles';
    // With a backtracking engine, 34 `a`s and a `!` take minutes of CPU on the server's only thread.
    const value = `${'a'.repeat(34)}!`;
    const [create, other] = await Promise.all([
      call(server, 'POST', path, { apiVersion: 'example.com/v1', kind: 'Hostile', metadata: { name: 'h1' }, spec: { name: value } }),
      call(server, 'GET', '/api/v1/namespaces/default/configmaps/bystander'),
    ]);
    expect(other.status).toBe(200);
    expect(create.status).toBe(422);
    expect(create.body).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { causes: [{ field: 'spec.name' }] } });
    expect(create.body.message).toBe(`Hostile.example.com "h1" is invalid: spec.name: Invalid value: "${value}": spec.name in body should match '^(a+)+$'`);
    const matching = await call(server, 'POST', path, { apiVersion: 'example.com/v1', kind: 'Hostile', metadata: { name: 'h2' }, spec: { name: 'a'.repeat(100_000) } });
    expect(matching.status).toBe(201);
  });

  it('accepts Go RE2 syntax in CRD patterns and enforces it on custom resources', async () => {
    const created = await call(server, 'POST', crds, crdWithPatterns('gos', { flag: '(?i)^(on|off)$', word: '^\\pL+$', posix: '^[[:alpha:]]+\\z' }));
    expect(created.status).toBe(201);
    const path = '/apis/example.com/v1/namespaces/default/gos';
    const good = await call(server, 'POST', path, { apiVersion: 'example.com/v1', kind: 'Go', metadata: { name: 'g1' }, spec: { flag: 'ON', word: 'héllo', posix: 'abc' } });
    expect(good.status).toBe(201);
    const bad = await call(server, 'POST', path, { apiVersion: 'example.com/v1', kind: 'Go', metadata: { name: 'g2' }, spec: { flag: 'maybe', word: 'h3llo', posix: 'ab1' } });
    expect(bad.status).toBe(422);
    // kube-apiserver walks schema properties in map order, so only the set of causes is stable.
    expect(bad.body.details.causes.map((cause: { field: string }) => cause.field).sort()).toEqual(['spec.flag', 'spec.posix', 'spec.word']);
  });

  it('refuses a CRD whose pattern Go refuses (lookahead, backreference), naming the field as the API server does', async () => {
    const refused = await call(server, 'POST', crds, crdWithPatterns('lookarounds', { ahead: '^a(?=b)', back: '(a)\\1' }));
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    const prefix = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties';
    expect(refused.body.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "lookarounds.example.com" is invalid: [' +
        `${prefix}[ahead].pattern: Invalid value: "^a(?=b)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\`, ` +
        `${prefix}[back].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\1\`]`,
    );
    expect((await call(server, 'GET', `${crds}/lookarounds.example.com`)).status).toBe(404);
  });
});

describe('hostile YAML bodies', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    await server.stop();
  });

  const yaml = { 'Content-Type': 'application/yaml' };
  const cms = '/api/v1/namespaces/default/configmaps';

  it('answers 400 to nested aliases (billion laughs) and keeps serving', async () => {
    const levels = 'bcdefghi'.split('').map((name, index) => `  ${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[index]}`).join(', ')}]`);
    const body = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: laughs}', 'laughs:', '  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]', ...levels].join('\n');
    const response = await call(server, 'POST', cms, body, yaml);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    expect(response.body.message).toMatch(/^error decoding YAML: /);
    expect((await call(server, 'GET', '/livez')).text).toBe('ok');
  });

  it('answers 400 to a long string aliased fewer times than the YAML library bounds, but expanding past the limit', async () => {
    const aliases = Array.from({ length: 60 }, (_, index) => `  k${index}: *s`).join('\n');
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strings}\ndata:\n  s: &s "${'x'.repeat(1_200_000)}"\n${aliases}\n`;
    const response = await call(server, 'POST', cms, body, yaml);
    expect(response.status).toBe(400);
    expect(response.body.message).toBe(
      'error decoding YAML: document contains excessive aliasing: with its aliases expanded it takes more than 3145728 bytes (the request body limit, server option maxRequestBodyBytes); write the values out instead of using YAML anchors and aliases',
    );
    expect((await call(server, 'GET', `${cms}/strings`)).status).toBe(404);
  });

  it('still accepts modest aliases', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: modest, labels: &l {app: x}, annotations: *l}\n';
    const response = await call(server, 'POST', cms, body, yaml);
    expect(response.status).toBe(201);
    expect(response.body.metadata).toMatchObject({ labels: { app: 'x' }, annotations: { app: 'x' } });
  });
});
