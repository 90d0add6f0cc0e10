import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, startTestServer, widgetCrd } from './helpers.js';

/**
 * Generated patches (fast-check) against a ConfigMap, a Deployment and a custom resource, in all
 * three patch types, with paths and keys that include `__proto__`, `constructor` and `prototype`.
 * Every answer is a success or a 4xx Status that says what is wrong, never a 500; nothing reaches
 * Object.prototype; the server keeps serving.
 */
const segment = fc.oneof(fc.constantFrom('metadata', 'labels', 'data', 'spec', 'template', 'containers', '0', '1', '-', '__proto__', 'constructor', 'prototype', 'x~1y', '~0', ''), fc.string({ maxLength: 6 }));
const path = fc.array(segment, { maxLength: 5 }).map((parts) => (parts.length === 0 ? '' : `/${parts.join('/')}`));
const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom({ __proto__: { polluted: true } }, { constructor: { prototype: { polluted: true } } }));
const operation = fc.record(
  { op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), fc.string({ maxLength: 5 })), path, from: path, value },
  { requiredKeys: ['op', 'path'] },
);
const keyed: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  object: fc.dictionary(fc.oneof(segment, fc.constantFrom('$patch', '$retainKeys', '$setElementOrder/containers', '$deleteFromPrimitiveList/finalizers')), fc.oneof({ maxDepth: 3 }, fc.jsonValue({ maxDepth: 2 }), tie('object')), { maxKeys: 4 }),
})).object;
// JSON text, so that `__proto__` keys reach the server as own keys (JSON.stringify of a literal would drop them).
const protoKeys = fc.constantFrom('{"data":{"__proto__":"x","prototype":"y"}}', '{"__proto__":{"polluted":true}}', '{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}', '{"constructor":{"prototype":{"polluted":true}}}', '{"data":{"constructor":"x"}}');

const patchTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;

describe('generated patches', () => {
  let server: ApiServer;
  const targets = [
    '/api/v1/namespaces/default/configmaps/fuzz',
    '/apis/apps/v1/namespaces/default/deployments/fuzz',
    '/apis/example.com/v1/namespaces/default/widgets/fuzz',
  ];

  beforeAll(async () => {
    server = await startTestServer();
    await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'fuzz', labels: { a: 'b' } }, data: { key: 'value' } });
    await call(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'fuzz' },
      spec: { selector: { matchLabels: { app: 'fuzz' } }, template: { metadata: { labels: { app: 'fuzz' } }, spec: { containers: [{ name: 'main', image: 'example.com/main:v1' }] } } },
    });
    expect((await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd)).status).toBe(201);
    // the CRD's resource is served once Established
    await eventually(async () => {
      const created = await call(server, 'POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'fuzz' }, spec: { size: 1 } });
      if (created.status !== 201) throw new Error(`widget not created: ${created.text}`);
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('are applied or refused with a 4xx that explains, and pollute nothing', async () => {
    const patch = fc.oneof(
      fc.record({ type: fc.constant(patchTypes.json), body: fc.array(operation, { maxLength: 4 }).map((ops) => JSON.stringify(ops)) }),
      fc.record({ type: fc.constantFrom(patchTypes.merge, patchTypes.strategic), body: fc.oneof(keyed.map((body) => JSON.stringify(body)), protoKeys) }),
      fc.record({ type: fc.constantFrom(patchTypes.json, patchTypes.merge, patchTypes.strategic), body: fc.string({ maxLength: 60 }) }),
    );
    const outcomes = { applied: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), patch, async (target, { type, body }) => {
        const response = await call(server, 'PATCH', target, body, { 'Content-Type': type });
        outcomes[response.status < 300 ? 'applied' : 'refused'] += 1;
        if (response.status >= 300) {
          expect(response.status, `${type} ${body} → ${response.text}`).toBeGreaterThanOrEqual(400);
          expect(response.status, `${type} ${body} → ${response.text}`).toBeLessThan(500);
          expect(response.body).toMatchObject({ kind: 'Status', status: 'Failure' });
          expect((response.body as { message: string }).message.length).toBeGreaterThan(0);
        }
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      }),
      { numRuns: 400, seed: 20_261_127 },
    );
    // both paths were exercised
    expect(outcomes.applied).toBeGreaterThan(20);
    expect(outcomes.refused).toBeGreaterThan(20);
    // still serving, and the objects still read back
    for (const target of targets) expect((await call(server, 'GET', target)).status).toBe(200);
  }, 120_000);
});
