import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, eventually, installWidgetCrd, openWatch, startTestServer } from './helpers.js';

const cms = '/api/v1/namespaces/default/configmaps';
const widgets = '/apis/example.com/v1/namespaces/default/widgets';

describe('conformance with raw HTTP', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startTestServer({ watchWindow: 200 });
    await installWidgetCrd(server);
  });

  afterAll(async () => {
    await server.stop();
  });

  it('answers 409 Conflict to an update from a stale resourceVersion', async () => {
    const created = await call(server, 'POST', cms, { metadata: { name: 'stale' }, data: { a: '1' } });
    expect(created.status).toBe(201);
    const rv = created.body.metadata.resourceVersion;
    const first = await call(server, 'PUT', `${cms}/stale`, { metadata: { name: 'stale', resourceVersion: rv }, data: { a: '2' } });
    expect(first.status).toBe(200);
    expect(Number(first.body.metadata.resourceVersion)).toBeGreaterThan(Number(rv));
    const second = await call(server, 'PUT', `${cms}/stale`, { metadata: { name: 'stale', resourceVersion: rv }, data: { a: '3' } });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: 'Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it('lets exactly one of 20 parallel replaces from one resourceVersion win', async () => {
    const created = await call(server, 'POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'race' }, spec: { size: 0 } });
    const rv = created.body.metadata.resourceVersion;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        call(server, 'PUT', `${widgets}/race`, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'race', resourceVersion: rv }, spec: { size: index + 1 } }),
      ),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.status === 409)).toHaveLength(19);
    const winner = results.find((result) => result.status === 200);
    const current = await call(server, 'GET', `${widgets}/race`);
    expect(current.body.spec.size).toBe(winner?.body.spec.size);
    expect(current.body.metadata.generation).toBe(2);
  });

  it('bounds the total size of annotations at 256 KiB, keys included, on create and on update', async () => {
    const configMaps = '/api/v1/namespaces/default/configmaps';
    const half = 'x'.repeat(128 * 1024);
    // Exactly at the limit: two keys of one byte and values that fill the rest.
    const fits = { a: half.slice(1), b: half.slice(1) };
    expect((await call(server, 'POST', configMaps, { metadata: { name: 'annotated', annotations: fits } })).status).toBe(201);
    const over = await call(server, 'POST', configMaps, { metadata: { name: 'overannotated', annotations: { a: half, b: half } } });
    expect(over.status).toBe(422);
    expect(over.body.message).toBe('ConfigMap "overannotated" is invalid: metadata.annotations: Too long: must have at most 262144 bytes');
    expect(over.body.details.causes).toEqual([{ reason: 'FieldValueTooLong', message: 'Too long: must have at most 262144 bytes', field: 'metadata.annotations' }]);
    const patched = await call(server, 'PATCH', `${configMaps}/annotated`, { metadata: { annotations: { c: 'y' } } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(patched.status).toBe(422);
    expect((await call(server, 'GET', `${configMaps}/annotated`)).body.metadata.annotations.c).toBeUndefined();
  });

  it('requires a resourceVersion to update custom resources', async () => {
    await call(server, 'POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'norv' }, spec: { size: 1 } });
    const response = await call(server, 'PUT', `${widgets}/norv`, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'norv' }, spec: { size: 2 } });
    expect(response.status).toBe(422);
    expect(response.body.message).toBe('Widget.example.com "norv" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
  });

  it('assigns resourceVersions from one strictly increasing counter', async () => {
    const versions: number[] = [];
    for (let index = 0; index < 5; index++) {
      const response = await call(server, 'POST', cms, { metadata: { generateName: 'seq-' } });
      expect(response.body.metadata.name).toMatch(/^seq-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      versions.push(Number(response.body.metadata.resourceVersion));
    }
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
    expect(new Set(versions).size).toBe(5);
    const list = await call(server, 'GET', cms);
    expect(Number(list.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(versions[4] ?? 0);
  });

  it('sends ERROR 410 Expired when watching from a compacted resourceVersion', async () => {
    const start = server.revision();
    for (let index = 0; index < 5; index++) await call(server, 'POST', cms, { metadata: { generateName: 'exp-' } });
    server.compact(server.revision() - 1);
    const watch = openWatch(server, `${cms}?watch=true&resourceVersion=${start}`);
    await watch.done;
    expect(watch.events).toHaveLength(1);
    expect(watch.events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
    expect(watch.events[0]?.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it('sends ERROR 410 for a resourceVersion from an earlier in-memory run, instead of silently skipping events up to it', async () => {
    const earlier = await startTestServer();
    for (let index = 0; index < 30; index++) await call(earlier, 'POST', cms, { metadata: { generateName: 'old-' } });
    const remembered = earlier.revision();
    await earlier.stop();
    const restarted = await startTestServer();
    try {
      expect(restarted.revision()).toBeLessThan(remembered);
      const watch = openWatch(restarted, `${cms}?watch=true&resourceVersion=${remembered}`);
      await watch.done;
      // The server's own controllers may write meanwhile: `current` is the revision when the watch began.
      expect(watch.events).toEqual([{ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired', message: expect.stringMatching(new RegExp(`^Too large resource version: ${remembered}, current: \\d+$`)) }) }]);
      expect(Number(/current: (\d+)/.exec(watch.events[0]?.object.message)?.[1])).toBeLessThanOrEqual(restarted.revision());
    } finally {
      await restarted.stop();
    }
  });

  it('resumes a watch from the last seen resourceVersion without missing or repeating events', async () => {
    const first = openWatch(server, `${cms}?watch=true&resourceVersion=${server.revision()}&labelSelector=resume%3Dyes`);
    for (let index = 0; index < 3; index++) await call(server, 'POST', cms, { metadata: { name: `resume-${index}`, labels: { resume: 'yes' } } });
    await first.waitFor(3);
    first.stop();
    const lastSeen = first.events[2]?.object.metadata.resourceVersion as string;
    for (let index = 3; index < 6; index++) await call(server, 'POST', cms, { metadata: { name: `resume-${index}`, labels: { resume: 'yes' } } });
    const second = openWatch(server, `${cms}?watch=true&resourceVersion=${lastSeen}&labelSelector=resume%3Dyes`);
    await call(server, 'DELETE', `${cms}/resume-0`);
    const events = await second.waitFor(4);
    second.stop();
    expect(events.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual(['ADDED resume-3', 'ADDED resume-4', 'ADDED resume-5', 'DELETED resume-0']);
    const versions = [...first.events, ...events].map((event) => Number(event.object.metadata.resourceVersion));
    expect(new Set(versions).size).toBe(versions.length);
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
  });

  it('turns selector transitions into ADDED and DELETED, and sends initial ADDED events for resourceVersion 0', async () => {
    await call(server, 'POST', cms, { metadata: { name: 'sel-a', labels: { tier: 'x' } } });
    const watch = openWatch(server, `${cms}?watch=1&resourceVersion=0&labelSelector=tier%20in%20(x)`);
    await watch.waitFor(1);
    await call(server, 'PATCH', `${cms}/sel-a`, { metadata: { labels: { tier: 'y' } } }, { 'Content-Type': 'application/merge-patch+json' });
    await call(server, 'PATCH', `${cms}/sel-a`, { metadata: { labels: { tier: 'x' } } }, { 'Content-Type': 'application/merge-patch+json' });
    await call(server, 'PATCH', `${cms}/sel-a`, { data: { k: 'v' } }, { 'Content-Type': 'application/merge-patch+json' });
    const events = await watch.waitFor(4);
    watch.stop();
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'DELETED', 'ADDED', 'MODIFIED']);
    expect(events[1]?.object.metadata.labels).toEqual({ tier: 'x' });
    expect(Number(events[1]?.object.metadata.resourceVersion)).toBe(Number(events[2]?.object.metadata.resourceVersion) - 1);
  });

  it('filters by metadata.name and sends bookmarks before a timeout closes the watch', async () => {
    const watch = openWatch(server, `${cms}?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dbm&resourceVersion=${server.revision()}`);
    await call(server, 'POST', cms, { metadata: { name: 'bm-other' } });
    await call(server, 'POST', cms, { metadata: { name: 'bm' } });
    await watch.done;
    expect(watch.events.map((event) => event.type)).toEqual(['ADDED', 'BOOKMARK']);
    const bookmark = watch.events[1]?.object;
    expect(bookmark.kind).toBe('ConfigMap');
    expect(Number(bookmark.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(watch.events[0]?.object.metadata.resourceVersion));
  });

  it('streams the initial list with sendInitialEvents, ending with an annotated bookmark', async () => {
    await call(server, 'POST', cms, { metadata: { name: 'stream-a', labels: { stream: 'yes' } } });
    await call(server, 'POST', cms, { metadata: { name: 'stream-b', labels: { stream: 'yes' } } });
    const watch = openWatch(server, `${cms}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&labelSelector=stream`);
    const events = await watch.waitFor(3);
    watch.stop();
    expect(events.map((event) => `${event.type} ${event.object.metadata.name ?? ''}`)).toEqual(['ADDED stream-a', 'ADDED stream-b', 'BOOKMARK ']);
    expect(events[2]?.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(Number(events[2]?.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(events[1]?.object.metadata.resourceVersion));
  });

  it('pages lists with limit and continue', async () => {
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'paging' } });
    const paging = '/api/v1/namespaces/paging/configmaps';
    for (let index = 0; index < 5; index++) await call(server, 'POST', paging, { metadata: { name: `page-${index}`, labels: { paged: index === 2 ? 'no' : 'yes' } } });
    const first = await call(server, 'GET', `${paging}?limit=2`);
    expect(first.body.items.map((item: any) => item.metadata.name)).toEqual(['page-0', 'page-1']);
    expect(first.body.metadata.remainingItemCount).toBe(3);
    const second = await call(server, 'GET', `${paging}?limit=2&continue=${first.body.metadata.continue}`);
    expect(second.body.items.map((item: any) => item.metadata.name)).toEqual(['page-2', 'page-3']);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    const third = await call(server, 'GET', `${paging}?limit=2&continue=${second.body.metadata.continue}`);
    expect(third.body.items.map((item: any) => item.metadata.name)).toEqual(['page-4']);
    expect(third.body.metadata.continue).toBeUndefined();
    // With a selector the pages skip non-matching objects and carry no remainingItemCount.
    const filtered = await call(server, 'GET', `${paging}?labelSelector=paged%3Dyes&limit=2`);
    expect(filtered.body.items.map((item: any) => item.metadata.name)).toEqual(['page-0', 'page-1']);
    expect(filtered.body.metadata.remainingItemCount).toBeUndefined();
    const rest = await call(server, 'GET', `${paging}?labelSelector=paged%3Dyes&limit=2&continue=${filtered.body.metadata.continue}`);
    expect(rest.body.items.map((item: any) => item.metadata.name)).toEqual(['page-3', 'page-4']);
    const across = await call(server, 'GET', `/api/v1/configmaps?limit=1&continue=${Buffer.from(JSON.stringify({ rv: Number(first.body.metadata.resourceVersion), start: 'paging/page-3' })).toString('base64url')}`);
    expect(across.body.items.map((item: any) => `${item.metadata.namespace}/${item.metadata.name}`)).toEqual(['paging/page-4']);
    // Once the list's revision is compacted away, its continue token is expired.
    await call(server, 'POST', paging, { metadata: { name: 'page-5' } });
    server.compact(server.revision());
    const expiredPage = await call(server, 'GET', `${paging}?limit=2&continue=${first.body.metadata.continue}`);
    expect(expiredPage.status).toBe(410);
    expect(expiredPage.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    expect(expiredPage.body.message).toMatch(/^The provided continue parameter is too old/);
  });

  it('rejects malformed selectors with 400', async () => {
    const labels = await call(server, 'GET', `${cms}?labelSelector=a%20in%20(b`);
    expect(labels.status).toBe(400);
    expect(labels.body.reason).toBe('BadRequest');
    const fields = await call(server, 'GET', `${cms}?fieldSelector=spec.foo%3Dbar`);
    expect(fields.status).toBe(400);
    expect(fields.body.message).toBe('field label not supported: spec.foo');
  });

  it('filters events by involvedObject fields', async () => {
    const event = (name: string, kind: string) => ({ metadata: { name }, involvedObject: { kind, name: 'w1', namespace: 'default' }, reason: 'Tested', type: 'Normal', message: 'hi' });
    await call(server, 'POST', '/api/v1/namespaces/default/events', event('ev1', 'Widget'));
    await call(server, 'POST', '/api/v1/namespaces/default/events', event('ev2', 'Pod'));
    const list = await call(server, 'GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DWidget,involvedObject.name%3Dw1,type%3DNormal');
    expect(list.body.items.map((item: any) => item.metadata.name)).toEqual(['ev1']);
  });

  it('rejects custom resources that fail the schema, with field paths', async () => {
    const response = await call(server, 'POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'bad' }, spec: { size: 'big' } });
    expect(response.status).toBe(422);
    expect(response.body.reason).toBe('Invalid');
    expect(response.body.message).toBe('Widget.example.com "bad" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"');
    expect(response.body.details.causes[0]).toMatchObject({ field: 'spec.size', reason: 'FieldValueTypeInvalid' });
  });

  it('prunes unknown fields with a Warning by default and refuses them with fieldValidation=Strict', async () => {
    const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'unknown' }, spec: { size: 1, foo: 2 } };
    const strict = await call(server, 'POST', `${widgets}?fieldValidation=Strict`, body);
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.foo"');
    const warned = await call(server, 'POST', widgets, body);
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.foo\\""');
    expect(warned.body.spec).toEqual({ size: 1, color: 'blue' });
  });

  it('splits status from spec with the status subresource and bumps generation on spec changes only', async () => {
    const created = await call(server, 'POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'split' }, spec: { size: 1 }, status: { phase: 'Ignored' } });
    expect(created.body.status).toBeUndefined();
    expect(created.body.metadata.generation).toBe(1);
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const status = await call(server, 'PATCH', `${widgets}/split/status`, { spec: { size: 9 }, status: { phase: 'Ready' } }, merge);
    expect(status.body).toMatchObject({ spec: { size: 1 }, status: { phase: 'Ready' }, metadata: { generation: 1 } });
    const main = await call(server, 'PATCH', `${widgets}/split`, { spec: { size: 2 }, status: { phase: 'Lost' } }, merge);
    expect(main.body).toMatchObject({ spec: { size: 2 }, status: { phase: 'Ready' }, metadata: { generation: 2 } });
    const labels = await call(server, 'PATCH', `${widgets}/split`, { metadata: { labels: { a: 'b' } } }, merge);
    expect(labels.body.metadata.generation).toBe(2);
    const noop = await call(server, 'PATCH', `${widgets}/split`, { spec: { size: 2 } }, merge);
    expect(noop.body.metadata.resourceVersion).toBe(labels.body.metadata.resourceVersion);
  });

  it('serves every served version of a CRD, rewriting apiVersion', async () => {
    await call(server, 'POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'multi' }, spec: { size: 3 } });
    const alpha = await call(server, 'GET', '/apis/example.com/v1alpha1/namespaces/default/widgets/multi');
    expect(alpha.body).toMatchObject({ apiVersion: 'example.com/v1alpha1', spec: { size: 3 } });
    const created = await call(server, 'POST', '/apis/example.com/v1alpha1/namespaces/default/widgets', { apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'alpha' }, spec: { size: 4 } });
    expect(created.status).toBe(201);
    const v1 = await call(server, 'GET', `${widgets}/alpha`);
    expect(v1.body.apiVersion).toBe('example.com/v1');
    const crd = await call(server, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
    expect(crd.body.status.storedVersions).toEqual(['v1']);
    expect(crd.body.status.acceptedNames).toMatchObject({ plural: 'widgets', kind: 'Widget', listKind: 'WidgetList' });
    expect(crd.body.status.conditions.map((c: any) => `${c.type}=${c.status}`)).toEqual(['NamesAccepted=True', 'Established=True']);
  });

  it('holds deletion while finalizers remain and refuses new finalizers meanwhile', async () => {
    await call(server, 'POST', cms, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const deleted = await call(server, 'DELETE', `${cms}/held`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.deletionTimestamp).toBeDefined();
    const still = await call(server, 'GET', `${cms}/held`);
    expect(still.status).toBe(200);
    const added = await call(server, 'PATCH', `${cms}/held`, { metadata: { finalizers: ['example.com/hold', 'x'] } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(added.status).toBe(422);
    expect(added.body.message).toContain('metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"x"}');
    const watch = openWatch(server, `${cms}?watch=true&resourceVersion=${server.revision()}&fieldSelector=metadata.name%3Dheld`);
    await call(server, 'PATCH', `${cms}/held`, { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
    const events = await watch.waitFor(1);
    watch.stop();
    expect(events[0]?.type).toBe('DELETED');
    expect((await call(server, 'GET', `${cms}/held`)).status).toBe(404);
  });

  it('checks delete preconditions', async () => {
    const created = await call(server, 'POST', cms, { metadata: { name: 'pre' } });
    const wrong = await call(server, 'DELETE', `${cms}/pre`, { preconditions: { uid: 'nope' } });
    expect(wrong.status).toBe(409);
    expect(wrong.body.message).toContain('Precondition failed: UID in precondition: nope');
    const right = await call(server, 'DELETE', `${cms}/pre`, { preconditions: { uid: created.body.metadata.uid } });
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'pre', kind: 'configmaps' } });
  });

  it('garbage-collects dependents in the background, in the foreground and orphans them on request', async () => {
    const owner = async (name: string) => (await call(server, 'POST', cms, { metadata: { name } })).body;
    const dependent = async (name: string, ownerObject: any, block = false) =>
      call(server, 'POST', cms, { metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: ownerObject.metadata.name, uid: ownerObject.metadata.uid, blockOwnerDeletion: block }] } });

    const background = await owner('gc-bg');
    await dependent('gc-bg-child', background);
    await call(server, 'DELETE', `${cms}/gc-bg`, { propagationPolicy: 'Background' });
    await eventually(async () => expect((await call(server, 'GET', `${cms}/gc-bg-child`)).status).toBe(404));

    const foreground = await owner('gc-fg');
    await call(server, 'POST', cms, {
      metadata: { name: 'gc-fg-child', finalizers: ['example.com/slow'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gc-fg', uid: foreground.metadata.uid, blockOwnerDeletion: true }] },
    });
    const deleting = await call(server, 'DELETE', `${cms}/gc-fg`, { propagationPolicy: 'Foreground' });
    expect(deleting.body.metadata.finalizers).toContain('foregroundDeletion');
    await eventually(async () => expect((await call(server, 'GET', `${cms}/gc-fg-child`)).body.metadata.deletionTimestamp).toBeDefined());
    expect((await call(server, 'GET', `${cms}/gc-fg`)).status).toBe(200);
    await call(server, 'PATCH', `${cms}/gc-fg-child`, { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
    await eventually(async () => expect((await call(server, 'GET', `${cms}/gc-fg`)).status).toBe(404));

    const orphaning = await owner('gc-or');
    await dependent('gc-or-child', orphaning);
    await call(server, 'DELETE', `${cms}/gc-or`, { propagationPolicy: 'Orphan' });
    await eventually(async () => expect((await call(server, 'GET', `${cms}/gc-or`)).status).toBe(404));
    const orphan = await call(server, 'GET', `${cms}/gc-or-child`);
    expect(orphan.status).toBe(200);
    expect(orphan.body.metadata.ownerReferences).toBeUndefined();

    await call(server, 'POST', cms, { metadata: { name: 'gc-wrong-uid', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gc-or-child', uid: 'not-the-uid' }] } });
    await eventually(async () => expect((await call(server, 'GET', `${cms}/gc-wrong-uid`)).status).toBe(404));
  });

  it('terminates namespaces: contents deleted, creates refused, then gone', async () => {
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    const namespace = await call(server, 'GET', '/api/v1/namespaces/doomed');
    expect(namespace.body).toMatchObject({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' }, metadata: { labels: { 'kubernetes.io/metadata.name': 'doomed' } } });
    await call(server, 'POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await call(server, 'POST', '/apis/example.com/v1/namespaces/doomed/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } });
    const deleted = await call(server, 'DELETE', '/api/v1/namespaces/doomed');
    expect(deleted.body.status.phase).toBe('Terminating');
    const refused = await call(server, 'POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'late' } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');
    await eventually(async () => expect((await call(server, 'GET', '/apis/example.com/v1/namespaces/doomed/widgets/w')).status).toBe(404));
    expect((await call(server, 'GET', '/api/v1/namespaces/doomed')).status).toBe(200);
    await call(server, 'PATCH', '/api/v1/namespaces/doomed/configmaps/held', { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
    await eventually(async () => expect((await call(server, 'GET', '/api/v1/namespaces/doomed')).status).toBe(404));
    const seeded = await call(server, 'DELETE', '/api/v1/namespaces/default');
    expect(seeded.status).toBe(403);
  });

  it('rolls Deployments out after a delay and fails them on request', async () => {
    const deployments = '/apis/apps/v1/namespaces/default/deployments';
    const deployment = (name: string, annotations: Record<string, string> = {}) => ({
      metadata: { name, annotations },
      spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    await call(server, 'POST', deployments, deployment('ok'));
    const ready = await eventually(async () => {
      const current = await call(server, 'GET', `${deployments}/ok`);
      expect(current.body.status.availableReplicas).toBe(2);
      return current.body;
    });
    expect(ready.status).toMatchObject({ observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2 });
    expect(ready.status.conditions.map((c: any) => `${c.type}=${c.status}/${c.reason}`)).toEqual(['Available=True/MinimumReplicasAvailable', 'Progressing=True/NewReplicaSetAvailable']);

    server.failDeployment('default', 'ok');
    await eventually(async () => {
      const current = await call(server, 'GET', `${deployments}/ok`);
      expect(current.body.status.conditions.find((c: any) => c.type === 'Progressing')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
    });
    server.recoverDeployment('default', 'ok');
    await eventually(async () => expect((await call(server, 'GET', `${deployments}/ok`)).body.status.availableReplicas).toBe(2));

    await call(server, 'POST', deployments, deployment('annotated', { 'olm.local-apiserver/fail': 'true' }));
    await eventually(async () => {
      const current = await call(server, 'GET', `${deployments}/annotated`);
      expect(current.body.status.conditions.find((c: any) => c.type === 'Progressing')?.reason).toBe('ProgressDeadlineExceeded');
    });
    await call(server, 'PATCH', `${deployments}/annotated`, { metadata: { annotations: { 'olm.local-apiserver/fail': null } } }, { 'Content-Type': 'application/merge-patch+json' });
    await eventually(async () => expect((await call(server, 'GET', `${deployments}/annotated`)).body.status.availableReplicas).toBe(2));
  });

  it('runs Pods: Running and Ready after the delay, or crash-looping with the fail annotation', async () => {
    const pods = '/api/v1/namespaces/default/pods';
    const pod = (name: string, annotations: Record<string, string> = {}) => ({ metadata: { name, annotations }, spec: { containers: [{ name: 'main', image: 'busybox' }] } });
    const created = await call(server, 'POST', pods, pod('runner'));
    expect(created.body.status.phase).toBe('Pending');
    const running = await eventually(async () => {
      const current = await call(server, 'GET', `${pods}/runner`);
      expect(current.body.status.phase).toBe('Running');
      return current.body;
    });
    expect(running.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
    expect(running.status.containerStatuses).toEqual([expect.objectContaining({ name: 'main', ready: true, state: { running: expect.any(Object) } })]);
    expect(running.status.podIP).toMatch(/^10\.244\./);
    await call(server, 'POST', pods, pod('crasher', { 'olm.local-apiserver/fail': 'true' }));
    await eventually(async () => {
      const current = await call(server, 'GET', `${pods}/crasher`);
      expect(current.body.status.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
      expect(current.body.status.containerStatuses[0].state.waiting.reason).toBe('CrashLoopBackOff');
    });
    const table = await call(server, 'GET', pods, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.body.rows.map((row: any) => row.cells.slice(0, 3))).toEqual([
      ['crasher', '0/1', 'Running'],
      ['runner', '1/1', 'Running'],
    ]);
  });

  it('optionally creates ReplicaSets and Pods for Deployments, collected with their owner', async () => {
    const workloads = await startTestServer({ simulateWorkloadPods: true });
    try {
      const deployments = '/apis/apps/v1/namespaces/default/deployments';
      const body = (image: string) => ({
        metadata: { name: 'web' },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } } },
      });
      await call(workloads, 'POST', deployments, body('web:1'));
      const pods = await eventually(async () => {
        const list = await call(workloads, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb');
        expect(list.body.items).toHaveLength(2);
        expect(list.body.items.every((pod: any) => pod.status.phase === 'Running')).toBe(true);
        return list.body.items;
      });
      const replicaSets = await call(workloads, 'GET', '/apis/apps/v1/namespaces/default/replicasets');
      expect(replicaSets.body.items).toHaveLength(1);
      const [replicaSet] = replicaSets.body.items;
      expect(replicaSet.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{10}$/);
      expect(pods.every((pod: any) => pod.metadata.name.startsWith(`${replicaSet.metadata.name}-`) && pod.metadata.ownerReferences[0].uid === replicaSet.metadata.uid)).toBe(true);
      await eventually(async () => expect((await call(workloads, 'GET', `/apis/apps/v1/namespaces/default/replicasets/${replicaSet.metadata.name}`)).body.status.readyReplicas).toBe(2));

      // A new template rolls to a new ReplicaSet; the old one is scaled to zero.
      await call(workloads, 'PATCH', `${deployments}/web`, { spec: { template: { spec: { containers: [{ name: 'c', image: 'web:2' }] } } } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
      await eventually(async () => {
        const list = await call(workloads, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb');
        expect(list.body.items.map((pod: any) => pod.spec.containers[0].image)).toEqual(['web:2', 'web:2']);
      });

      // Foreground deletion cascades through the ReplicaSets to the Pods before the Deployment goes.
      const deleting = await call(workloads, 'DELETE', `${deployments}/web`, { propagationPolicy: 'Foreground' });
      expect(deleting.body.metadata.finalizers).toEqual(['foregroundDeletion']);
      const watch = openWatch(workloads, `/apis/apps/v1/namespaces/default/deployments?watch=true&resourceVersion=${deleting.body.metadata.resourceVersion}`);
      await eventually(async () => {
        expect((await call(workloads, 'GET', '/api/v1/namespaces/default/pods')).body.items).toEqual([]);
        expect((await call(workloads, 'GET', '/apis/apps/v1/namespaces/default/replicasets')).body.items).toEqual([]);
        expect((await call(workloads, 'GET', `${deployments}/web`)).status).toBe(404);
      });
      await watch.waitFor(1);
      watch.stop();
      expect(watch.events.map((event) => event.type)).toContain('DELETED');
    } finally {
      await workloads.stop();
    }
  });

  it('expires Events after the event TTL', async () => {
    const short = await startTestServer({ eventTtlMs: 200 });
    try {
      const events = '/api/v1/namespaces/default/events';
      const now = new Date().toISOString();
      await call(short, 'POST', events, { metadata: { name: 'old' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', lastTimestamp: '2020-01-01T00:00:00Z' });
      await call(short, 'POST', events, { metadata: { name: 'fresh' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', lastTimestamp: now });
      await eventually(async () => expect((await call(short, 'GET', `${events}/old`)).status).toBe(404));
      await eventually(async () => expect((await call(short, 'GET', `${events}/fresh`)).status).toBe(404));
      await call(short, 'POST', events, { metadata: { name: 'recent' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', lastTimestamp: new Date(Date.now() + 3_600_000).toISOString() });
      await call(short, 'POST', events, { metadata: { name: 'stale' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', lastTimestamp: '2020-01-01T00:00:00Z' });
      await eventually(async () => expect((await call(short, 'GET', `${events}/stale`)).status).toBe(404));
      expect((await call(short, 'GET', `${events}/recent`)).status).toBe(200);
    } finally {
      await short.stop();
    }
  });

  it('answers every failure with a Status of matching code and reason', async () => {
    const cases: [string, string, unknown, Record<string, string>, number, string][] = [
      ['GET', '/api/v1/namespaces/default/configmaps/missing', undefined, {}, 404, 'NotFound'],
      ['GET', '/apis/nothing.example.com/v1/things', undefined, {}, 404, 'NotFound'],
      ['POST', cms, { metadata: { name: 'dup' } }, {}, 201, ''],
      ['POST', cms, { metadata: { name: 'dup' } }, {}, 409, 'AlreadyExists'],
      ['POST', cms, '{not json', {}, 400, 'BadRequest'],
      ['POST', cms, 'binary', { 'Content-Type': 'application/vnd.kubernetes.protobuf' }, 400, 'BadRequest'],
      ['POST', cms, 'binary', { 'Content-Type': 'application/cbor' }, 415, 'UnsupportedMediaType'],
      ['POST', cms, { metadata: { name: 'Bad_Name' } }, {}, 422, 'Invalid'],
      ['POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'x' } }, {}, 404, 'NotFound'],
      ['PATCH', `${cms}/dup`, { data: 1 }, { 'Content-Type': 'text/plain' }, 415, 'UnsupportedMediaType'],
      ['PATCH', `${widgets}/split`, { spec: {} }, { 'Content-Type': 'application/strategic-merge-patch+json' }, 415, 'UnsupportedMediaType'],
      ['POST', `${cms}/dup`, {}, {}, 405, 'MethodNotAllowed'],
      ['GET', `${cms}?watch=true&resourceVersion=abc`, undefined, {}, 400, 'BadRequest'],
      ['PATCH', `${cms}/dup`, [{ op: 'test', path: '/data/x', value: 1 }], { 'Content-Type': 'application/json-patch+json' }, 422, 'Invalid'],
    ];
    for (const [method, path, body, headers, code, reason] of cases) {
      const response = await call(server, method, path, body, headers);
      expect({ method, path, code: response.status }).toEqual({ method, path, code });
      if (code >= 400) expect(response.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
    }
    expect((await call(server, 'GET', '/healthz')).text).toBe('ok');
  });
});
