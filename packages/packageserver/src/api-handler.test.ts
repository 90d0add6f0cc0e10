import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { undocumentedFields } from '../test/openapi-coverage.js';
import { createApiHandler } from './api-handler.js';
import { PackageManifestStore } from './package-manifest-store.js';
import type { PackageManifest } from './package-manifest.js';

const catalog = { namespace: 'olm', name: 'community' };
// Three days and a half hour ago: the Age column reads 3d however long the test takes.
const created = new Date(Date.now() - (72 * 60 + 30) * 60_000).toISOString();

function manifest(name: string, extra: { tier?: string; icon?: boolean } = {}): PackageManifest {
  return {
    apiVersion: 'packages.operators.coreos.com/v1',
    kind: 'PackageManifest',
    metadata: { name, namespace: 'olm', labels: { catalog: 'community', ...(extra.tier ? { tier: extra.tier } : {}) }, creationTimestamp: created },
    spec: {},
    status: {
      catalogSource: 'community',
      catalogSourceDisplayName: 'Community Operators',
      catalogSourcePublisher: '',
      catalogSourceNamespace: 'olm',
      provider: {},
      packageName: name,
      defaultChannel: 'stable',
      channels: [
        {
          name: 'stable',
          currentCSV: `${name}.v1`,
          currentCSVDesc: {
            provider: {},
            customresourcedefinitions: {},
            apiservicedefinitions: {},
            ...(extra.icon ? { icon: [{ base64data: Buffer.from('<svg>x</svg>').toString('base64'), mediatype: 'image/svg+xml' }] } : {}),
          },
          entries: [{ name: `${name}.v1`, version: '1.0.0' }],
        },
      ],
    },
  };
}

describe('the packageserver API handler', () => {
  let server: Server;
  let store: PackageManifestStore;
  let base: string;
  let ready: boolean;
  const closers = new Set<() => void>();

  beforeEach(async () => {
    store = new PackageManifestStore({ globalNamespace: 'olm', initialRevision: 1000 });
    store.replaceCatalog(catalog, [manifest('etcd', { tier: 'gold', icon: true }), manifest('redis')]);
    ready = false;
    server = createServer(
      createApiHandler({
        store,
        isReady: () => ready,
        bookmarkIntervalMs: 50,
        trackWatch: (close) => {
          closers.add(close);
          return () => closers.delete(close);
        },
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    for (const close of [...closers]) close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, { headers });
    const text = await response.text();
    return { status: response.status, type: response.headers.get('content-type'), text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
  };
  const collection = '/apis/packages.operators.coreos.com/v1/namespaces/team/packagemanifests';

  it('serves discovery for the group and its resources', async () => {
    expect((await get('/apis')).body).toEqual({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [{ name: 'packages.operators.coreos.com', versions: [{ groupVersion: 'packages.operators.coreos.com/v1', version: 'v1' }], preferredVersion: { groupVersion: 'packages.operators.coreos.com/v1', version: 'v1' } }],
    });
    expect((await get('/apis/packages.operators.coreos.com')).body).toMatchObject({ kind: 'APIGroup', name: 'packages.operators.coreos.com' });
    expect((await get('/apis/packages.operators.coreos.com/v1')).body.resources).toEqual([
      { name: 'packagemanifests', singularName: 'packagemanifest', namespaced: true, kind: 'PackageManifest', verbs: ['get', 'list', 'watch'] },
      { name: 'packagemanifests/icon', singularName: '', namespaced: true, kind: 'PackageManifest', verbs: ['get'] },
    ]);
    expect((await get('/apis/other.example.com/v1')).status).toBe(404);
    expect((await get('/apis/packages.operators.coreos.com/v2')).status).toBe(404);
    expect((await get('/apis/packages.operators.coreos.com/v1/namespaces/team/packagemanifests/etcd/status')).status).toBe(404);
  });

  it('serves an OpenAPI v3 index and document that describe every field the objects have', async () => {
    const index = (await get('/openapi/v3')).body;
    const url: string = index.paths['apis/packages.operators.coreos.com/v1'].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/packages\.operators\.coreos\.com\/v1\?hash=[0-9A-F]{128}$/);
    const document = (await get(url)).body;
    const schemas: Record<string, any> = document.components.schemas;
    // Every reference resolves.
    for (const reference of JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) expect(schemas, reference[1]).toHaveProperty([reference[1]!]);
    const [name, manifestSchema] = Object.entries(schemas).find(([, schema]) => schema['x-kubernetes-group-version-kind']?.[0]?.kind === 'PackageManifest')!;
    expect(document.paths['/apis/packages.operators.coreos.com/v1/namespaces/{namespace}/packagemanifests/{name}'].get.responses['200'].content['application/json'].schema.$ref).toBe(`#/components/schemas/${name}`);
    // A served object has no field the schema leaves out (kubectl explain would not know it).
    const items = (await get(collection)).body.items;
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(undocumentedFields(item, manifestSchema, schemas)).toEqual([]);
    expect((await get('/openapi/v3/apis/packages.operators.coreos.com/v2')).status).toBe(404);
  });

  it('reports health, and readiness once the CatalogSources were read', async () => {
    expect((await get('/healthz')).text).toBe('ok');
    expect((await get('/readyz')).status).toBe(503);
    ready = true;
    expect((await get('/readyz')).status).toBe(200);
  });

  it('lists and gets manifests without icons, and refuses writes', async () => {
    const list = await get(collection);
    expect(list.body).toMatchObject({ kind: 'PackageManifestList', apiVersion: 'packages.operators.coreos.com/v1', metadata: { resourceVersion: '1002' } });
    expect(list.body.items.map((item: PackageManifest) => [item.metadata.name, item.metadata.namespace])).toEqual([
      ['etcd', 'team'],
      ['redis', 'team'],
    ]);
    expect(list.body.items[0].status.channels[0].currentCSVDesc.icon).toBeUndefined();
    const one = await get(`${collection}/etcd`);
    expect(one.body.metadata).toMatchObject({ name: 'etcd', namespace: 'team', resourceVersion: '1001' });
    expect(one.body.status.channels[0].currentCSVDesc).toEqual({ provider: {}, customresourcedefinitions: {}, apiservicedefinitions: {} });
    const missing = await get(`${collection}/nothing`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'packagemanifests.packages.operators.coreos.com "nothing" not found',
      reason: 'NotFound',
      details: { name: 'nothing', group: 'packages.operators.coreos.com', kind: 'packagemanifests' },
      code: 404,
    });
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await fetch(`${base}${collection}${method === 'POST' ? '' : '/etcd'}`, { method, body: '{}' });
      expect(response.status, method).toBe(405);
    }
  });

  it('filters by label selector and metadata.name, and says what is wrong with other selectors', async () => {
    const byLabel = await get(`${collection}?labelSelector=${encodeURIComponent('tier in (gold,silver)')}`);
    expect(byLabel.body.items.map((item: PackageManifest) => item.metadata.name)).toEqual(['etcd']);
    const byName = await get(`${collection}?fieldSelector=${encodeURIComponent('metadata.name==redis')}`);
    expect(byName.body.items.map((item: PackageManifest) => item.metadata.name)).toEqual(['redis']);
    const badField = await get(`${collection}?fieldSelector=${encodeURIComponent('metadata.namespace=olm')}`);
    expect(badField.status).toBe(400);
    expect(badField.body).toMatchObject({ reason: 'BadRequest', message: 'field label not supported: metadata.namespace' });
    const badLabel = await get(`${collection}?labelSelector=${encodeURIComponent('tier in gold')}`);
    expect(badLabel.status).toBe(400);
    expect(badLabel.body.message).toMatch(/^unable to parse requirement: .*tier in gold/);
  });

  it('answers kubectl with a Table of Name, Catalog and Age', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const table = await get(collection, { Accept: accept });
    expect(table.type).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(table.body.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Catalog', 'Age']);
    expect(table.body.rows.map((row: { cells: unknown[] }) => row.cells)).toEqual([
      ['etcd', 'Community Operators', '3d'],
      ['redis', 'Community Operators', '3d'],
    ]);
    expect(table.body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'etcd', namespace: 'team' } });
    const bare = await get(`${collection}/redis?includeObject=None`, { Accept: accept });
    expect(bare.body.rows).toEqual([{ cells: ['redis', 'Community Operators', '3d'] }]);
  });

  it('serves the default channel head\'s first icon with an ETag', async () => {
    const response = await fetch(`${base}${collection}/etcd/icon`);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(await response.text()).toBe('<svg>x</svg>');
    expect(response.headers.get('etag')).toBe('"etcd.stable.etcd.v1"');
    expect((await fetch(`${base}${collection}/etcd/icon`, { headers: { 'If-None-Match': '"etcd.stable.etcd.v1"' } })).status).toBe(304);
    expect((await get(`${collection}/nothing/icon`)).status).toBe(404);
  });

  async function openWatch(query: string) {
    const controller = new AbortController();
    const response = await fetch(`${base}${collection}?watch=true&${query}`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const events: { type: string; object: any }[] = [];
    let buffer = '';
    const done = (async () => {
      try {
        for (;;) {
          const { value, done: finished } = await reader.read();
          if (finished) return;
          buffer += new TextDecoder().decode(value);
          let newline: number;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            events.push(JSON.parse(buffer.slice(0, newline)));
            buffer = buffer.slice(newline + 1);
          }
        }
      } catch {
        // aborted
      }
    })();
    const waitFor = async (count: number) => {
      const deadline = Date.now() + 5000;
      while (events.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} events, got ${JSON.stringify(events.map((event) => event.type))}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return events;
    };
    return { events, done, waitFor, stop: () => controller.abort() };
  }

  it('watches: initial ADDED events, then changes, with selector transitions as ADDED and DELETED', async () => {
    const watch = await openWatch('labelSelector=tier%3Dgold');
    try {
      await watch.waitFor(1);
      expect(watch.events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'etcd', namespace: 'team' } } });
      expect(watch.events[0]?.object.status.channels[0].currentCSVDesc.icon).toBeUndefined();
      store.replaceCatalog(catalog, [manifest('etcd', { icon: true }), manifest('redis', { tier: 'gold' })]);
      await watch.waitFor(3);
      expect(watch.events.slice(1).map((event) => `${event.type} ${event.object.metadata.name} ${event.object.metadata.resourceVersion}`)).toEqual(['DELETED etcd 1003', 'ADDED redis 1004']);
      store.removeCatalog(catalog);
      await watch.waitFor(4);
      expect(watch.events[3]).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'redis', namespace: 'team' } } });
    } finally {
      watch.stop();
    }
  });

  it('resumes a watch from a resourceVersion, and answers 410 Expired for one it no longer has', async () => {
    store.replaceCatalog(catalog, [manifest('etcd', { tier: 'silver' }), manifest('redis')]);
    const resumed = await openWatch('resourceVersion=1002');
    try {
      await resumed.waitFor(1);
      expect(resumed.events.map((event) => `${event.type} ${event.object.metadata.name}`)).toEqual(['MODIFIED etcd']);
    } finally {
      resumed.stop();
    }
    const expired = await openWatch('resourceVersion=5');
    await expired.done;
    expect(expired.events).toEqual([
      { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 5 (1003)', reason: 'Expired', code: 410 } },
    ]);
  });

  it('sends bookmarks when allowed and ends at timeoutSeconds', async () => {
    const watch = await openWatch('allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1');
    await watch.done;
    expect(watch.events.slice(0, 3).map((event) => event.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
    expect(watch.events[2]?.object.metadata).toEqual({ resourceVersion: '1002', annotations: { 'k8s.io/initial-events-end': 'true' } });
    expect(watch.events.slice(3).every((event) => event.type === 'BOOKMARK')).toBe(true);
    expect(watch.events.length).toBeGreaterThan(3);
  });
});
