import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, installWidgetCrd, openWatch, startTestServer } from './helpers.js';

// `?dryRun=All` on every write verb: the request is decoded, defaulted, validated and admitted, and
// answered as if done, but nothing is stored, no resourceVersion is used, no watch event is sent and
// nothing reaches the durable log (what `kubectl apply --dry-run=server` relies on).
describe('dryRun=All', () => {
  let server: ApiServer;
  let dataDir: string;
  const widgets = '/apis/example.com/v1/namespaces/default/widgets';
  const configMaps = '/api/v1/namespaces/default/configmaps';
  const merge = { 'Content-Type': 'application/merge-patch+json' };
  const jsonPatch = { 'Content-Type': 'application/json-patch+json' };
  const strategic = { 'Content-Type': 'application/strategic-merge-patch+json' };
  const apply = { 'Content-Type': 'application/apply-patch+yaml' };
  const widget = (name: string, spec: Record<string, unknown> = { size: 1 }, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name, ...extra },
    spec,
  });
  const logSize = async () => (await stat(join(dataDir, 'store.jsonl'))).size;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'apiserver-dry-run-'));
    server = await startTestServer({ dataDir });
    await installWidgetCrd(server);
    for (const body of [widget('real'), widget('held', { size: 1 }, { finalizers: ['example.com/hold'] })]) {
      expect((await call(server, 'POST', widgets, body)).status).toBe(201);
    }
    expect((await call(server, 'POST', configMaps, { metadata: { name: 'real', labels: { batch: 'x' } }, data: { a: '1' } })).status).toBe(201);
    expect((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'dry-ns' } })).status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers every write as if done, stores nothing, sends no watch event and writes no log', async () => {
    const revision = server.revision();
    const sizeBefore = await logSize();
    const widgetWatch = openWatch(server, `${widgets}?watch=true&resourceVersion=${revision}`);
    const configMapWatch = openWatch(server, `${configMaps}?watch=true&resourceVersion=${revision}`);
    const before = {
      real: (await call(server, 'GET', `${widgets}/real`)).body,
      held: (await call(server, 'GET', `${widgets}/held`)).body,
      configMap: (await call(server, 'GET', `${configMaps}/real`)).body,
      namespace: (await call(server, 'GET', '/api/v1/namespaces/dry-ns')).body,
    };
    try {
      // create: defaulted and answered with 201, not stored
      const created = await call(server, 'POST', `${widgets}?dryRun=All`, widget('dry'));
      expect(created.status).toBe(201);
      expect(created.body.spec).toEqual({ size: 1, color: 'blue' });
      expect(created.body.metadata.uid).toBeDefined();
      expect(created.body.metadata.resourceVersion).toBeUndefined();
      expect((await call(server, 'GET', `${widgets}/dry`)).status).toBe(404);
      const generated = await call(server, 'POST', `${configMaps}?dryRun=All`, { metadata: { generateName: 'gen-' } });
      expect(generated.status).toBe(201);
      expect(generated.body.metadata.name).toMatch(/^gen-/);
      expect((await call(server, 'GET', `${configMaps}/${generated.body.metadata.name}`)).status).toBe(404);

      // update
      const replaced = await call(server, 'PUT', `${widgets}/real?dryRun=All`, { ...before.real, spec: { size: 2 } });
      expect(replaced.status).toBe(200);
      expect(replaced.body.spec).toEqual({ size: 2, color: 'blue' });
      expect(replaced.body.metadata.generation).toBe(2);

      // patches of every type, and server-side apply of an existing and of a new object
      expect((await call(server, 'PATCH', `${widgets}/real?dryRun=All`, { spec: { size: 3 } }, merge)).body.spec.size).toBe(3);
      expect((await call(server, 'PATCH', `${widgets}/real?dryRun=All`, [{ op: 'replace', path: '/spec/size', value: 4 }], jsonPatch)).body.spec.size).toBe(4);
      expect((await call(server, 'PATCH', `${configMaps}/real?dryRun=All`, { data: { b: '2' } }, strategic)).body.data).toEqual({ a: '1', b: '2' });
      const applied = await call(server, 'PATCH', `${widgets}/real?dryRun=All&fieldManager=dry&force=true`, 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: real}\nspec: {size: 5}\n', { ...apply });
      expect(applied.status).toBe(200);
      expect(applied.body.spec.size).toBe(5);
      const appliedNew = await call(server, 'PATCH', `${widgets}/fresh?dryRun=All&fieldManager=dry`, 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: fresh}\nspec: {size: 6}\n', { ...apply });
      expect(appliedNew.status).toBe(201);
      expect((await call(server, 'GET', `${widgets}/fresh`)).status).toBe(404);
      expect((await call(server, 'PATCH', `${widgets}/real/status?dryRun=All`, { status: { phase: 'Dry' } }, merge)).body.status).toEqual({ phase: 'Dry' });

      // delete: by query, by DeleteOptions body, held by a finalizer, a collection, a namespace
      expect((await call(server, 'DELETE', `${widgets}/real?dryRun=All`)).status).toBe(200);
      expect((await call(server, 'DELETE', `${configMaps}/real`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] })).status).toBe(200);
      const held = await call(server, 'DELETE', `${widgets}/held?dryRun=All`);
      expect(held.body.metadata.deletionTimestamp).toBeDefined();
      expect((await call(server, 'DELETE', `${configMaps}?dryRun=All&labelSelector=batch%3Dx`)).body.items.map((item: any) => item.metadata.name)).toEqual(['real']);
      const namespace = await call(server, 'DELETE', '/api/v1/namespaces/dry-ns?dryRun=All');
      expect(namespace.body.status.phase).toBe('Terminating');

      // nothing changed
      expect((await call(server, 'GET', `${widgets}/real`)).body).toEqual(before.real);
      expect((await call(server, 'GET', `${widgets}/held`)).body).toEqual(before.held);
      expect((await call(server, 'GET', `${configMaps}/real`)).body).toEqual(before.configMap);
      expect((await call(server, 'GET', '/api/v1/namespaces/dry-ns')).body).toEqual(before.namespace);
      expect(server.revision()).toBe(revision);
      expect(await logSize()).toBe(sizeBefore);

      // the watches saw none of it: the first event each gets is the real write that follows
      await call(server, 'PATCH', `${widgets}/real`, { spec: { size: 9 } }, merge);
      await call(server, 'PATCH', `${configMaps}/real`, { data: { z: '9' } }, merge);
      const [widgetEvent] = await widgetWatch.waitFor(1);
      const [configMapEvent] = await configMapWatch.waitFor(1);
      expect([widgetEvent!.type, widgetEvent!.object.metadata.name, widgetEvent!.object.spec.size]).toEqual(['MODIFIED', 'real', 9]);
      expect([configMapEvent!.type, configMapEvent!.object.metadata.name, configMapEvent!.object.data.z]).toEqual(['MODIFIED', 'real', '9']);
      expect(widgetWatch.events).toHaveLength(1);
      expect(configMapWatch.events).toHaveLength(1);
    } finally {
      widgetWatch.stop();
      configMapWatch.stop();
    }
  });

  it('still validates and admits: the same errors as a real write', async () => {
    const invalid = await call(server, 'POST', `${widgets}?dryRun=All`, widget('bad', { size: 'big' }));
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toContain('spec.size');
    const strict = await call(server, 'POST', `${widgets}?dryRun=All&fieldValidation=Strict`, widget('strict', { size: 1, colour: 'red' }));
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('unknown field "spec.colour"');
    expect((await call(server, 'POST', `${widgets}?dryRun=All`, widget('real'))).status).toBe(409);
    const current = (await call(server, 'GET', `${widgets}/real`)).body;
    const stale = await call(server, 'PUT', `${widgets}/real?dryRun=All`, { ...current, metadata: { ...current.metadata, resourceVersion: '1' } });
    expect(stale.status).toBe(409);
    expect((await call(server, 'DELETE', `${widgets}/missing?dryRun=All`)).status).toBe(404);
    expect((await call(server, 'POST', `/api/v1/namespaces/nowhere/configmaps?dryRun=All`, { metadata: { name: 'x' } })).status).toBe(404);
  });

  it('accepts only "All", in the query and in DeleteOptions', async () => {
    const query = await call(server, 'POST', `${configMaps}?dryRun=Some`, { metadata: { name: 'x' } });
    expect(query.status).toBe(400);
    expect(query.body.message).toBe('dryRun: Unsupported value: "Some": supported values: "All"');
    const body = await call(server, 'DELETE', `${configMaps}/real`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['Some'] });
    expect(body.status).toBe(400);
    expect(body.body.message).toBe('dryRun: Unsupported value: "Some": supported values: "All"');
    expect((await call(server, 'GET', `${configMaps}/real`)).status).toBe(200);
  });
});
