import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { loadCatalog, type Catalog } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCatalogContent, startCatalogHttpServer, writeCatalogContent, type CatalogContentRevision, type CatalogContentStore, type CatalogHttpServer } from '../src/index.js';
import { get, jsonLines } from './https-get.js';

const certified = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));

let catalog: Catalog;
let work: string;
let revision: CatalogContentRevision;
let store: CatalogContentStore;
let server: CatalogHttpServer;
let base: string;
let ca: string;

function countBySchema(objects: readonly Record<string, unknown>[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const object of objects) counts[String(object.schema)] = (counts[String(object.schema)] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  catalog = await loadCatalog(certified);
  work = await mkdtemp(join(tmpdir(), 'catalog-http-'));
  revision = await writeCatalogContent(join(work, 'content'), catalog);
  store = await openCatalogContent(join(work, 'content'));
  server = await startCatalogHttpServer({ catalog: (name) => (name === 'certified' ? store : undefined) });
  base = `${server.url}/catalogs/certified`;
  ca = server.certificate!;
});

afterAll(async () => {
  await server?.stop();
  await store?.close();
  await rm(work, { recursive: true, force: true });
});

describe('GET /api/v1/all on the certified catalog over HTTPS', () => {
  it('is every object of the loaded catalog, one compact JSON object a line, as application/jsonl', async () => {
    const reply = await get(`${base}/api/v1/all`, { ca });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/jsonl');
    expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
    expect(reply.body.length).toBe(revision.size);
    const objects = jsonLines(reply.body);
    let channels = 0;
    let bundles = 0;
    for (const item of catalog.packages.values()) {
      channels += item.channels.size;
      bundles += item.bundles.size;
    }
    expect(countBySchema(objects)).toEqual({ 'olm.package': catalog.packages.size, 'olm.channel': channels, 'olm.bundle': bundles });
    expect(countBySchema(objects)).toEqual({ 'olm.package': 59, 'olm.channel': 213, 'olm.bundle': 739 });
    expect(revision.objects).toBe(objects.length);
    // Compact and with sorted keys, as Go encodes a decoded map.
    const firstLine = reply.body.toString('utf8').split('\n')[0]!;
    expect(firstLine).toBe(JSON.stringify(objects[0]));
    expect(Object.keys(objects[0]!)).toEqual(Object.keys(objects[0]!).sort());
  });

  it('keeps the catalog files\' order (files by path, blobs in file order) and every field of a bundle', async () => {
    const objects = jsonLines((await get(`${base}/api/v1/all`, { ca })).body);
    expect(objects[0]).toMatchObject({ schema: 'olm.package', name: 'airlock-microgateway' });
    const packageOrder = objects.filter((object) => object.schema === 'olm.package').map((object) => object.name);
    // Go's fs.WalkDir order: dxoperator/ before dxoperator-v2/ (a plain path sort puts `-` before `/`).
    expect(packageOrder.indexOf('dxoperator')).toBe(packageOrder.indexOf('dxoperator-v2') - 1);
    const directory = (item: { position?: { file: string } }): string => item.position!.file.split('/')[0]!;
    const inWalkOrder = [...catalog.packages.values()].sort((a, b) => (directory(a) < directory(b) ? -1 : directory(a) > directory(b) ? 1 : a.position!.index! - b.position!.index!));
    expect(packageOrder).toEqual(inWalkOrder.map((item) => item.name));
    const bundle = objects.find((object) => object.schema === 'olm.bundle' && object.package === 'gpu-operator-certified')!;
    const model = catalog.package('gpu-operator-certified')!.bundles.get(String(bundle.name))!;
    expect(bundle.image).toBe(model.image);
    expect(bundle.properties).toEqual(JSON.parse(JSON.stringify(model.properties)));
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const reply = await get(`${base}/api/v1/all`, { ca, method: 'HEAD' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-length']).toBe(String(revision.size));
    expect(reply.headers['content-type']).toBe('application/jsonl');
    expect(reply.headers.etag).toBe(revision.etag);
    expect(reply.body.length).toBe(0);
  });

  it('is refused by a client that does not trust the certificate', async () => {
    await expect(get(`${base}/api/v1/all`)).rejects.toThrow(/self.signed certificate/);
  });
});

describe('GET /api/v1/metas', () => {
  it('filters by schema, package and name, alone or together, in file order', async () => {
    const metas = async (query: string): Promise<Record<string, unknown>[]> => {
      const reply = await get(`${base}/api/v1/metas?${query}`, { ca });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/jsonl');
      return jsonLines(reply.body);
    };
    const gpu = catalog.package('gpu-operator-certified')!;
    expect(countBySchema(await metas('schema=olm.bundle'))).toEqual({ 'olm.bundle': 739 });
    // The olm.package blob has no `package` key, so a package filter finds its channels and bundles only.
    expect(countBySchema(await metas('package=gpu-operator-certified'))).toEqual({ 'olm.channel': gpu.channels.size, 'olm.bundle': gpu.bundles.size });
    expect((await metas('schema=olm.channel&package=gpu-operator-certified')).map((object) => object.name)).toEqual([...gpu.channels.keys()].sort());
    expect(await metas('schema=olm.package&name=gpu-operator-certified')).toEqual([expect.objectContaining({ schema: 'olm.package', name: 'gpu-operator-certified', defaultChannel: gpu.defaultChannel })]);
    const bundleName = [...gpu.bundles.keys()][0]!;
    expect(await metas(`package=gpu-operator-certified&name=${bundleName}`)).toEqual([expect.objectContaining({ schema: 'olm.bundle', name: bundleName })]);
    expect(await metas('schema=olm.deprecations')).toEqual([]);
    expect(await metas('name=no-such-object')).toEqual([]);
  });

  it('without filters (or with empty ones) is the whole catalog, as /all', async () => {
    const all = (await get(`${base}/api/v1/all`, { ca })).body;
    expect((await get(`${base}/api/v1/metas`, { ca })).body.equals(all)).toBe(true);
    expect((await get(`${base}/api/v1/metas?schema=&name=`, { ca })).body.equals(all)).toBe(true);
  });

  it('answers HEAD with headers only', async () => {
    const reply = await get(`${base}/api/v1/metas?schema=olm.package`, { ca, method: 'HEAD' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/jsonl');
    expect(Number(reply.headers['content-length'])).toBeGreaterThan(0);
    expect(reply.body.length).toBe(0);
  });
});

describe('errors as catalogd answers them', () => {
  it('400 for a parameter metas does not know, even beside known ones', async () => {
    for (const query of ['limit=1', 'schema=olm.bundle&sort=name', 'Schema=olm.bundle']) {
      const reply = await get(`${base}/api/v1/metas?${query}`, { ca });
      expect([reply.status, reply.body.toString()]).toEqual([400, '400 Bad Request\n']);
      expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    }
  });

  it('404 for an unknown catalog or path, 405 for other methods', async () => {
    expect((await get(`${server.url}/catalogs/other/api/v1/all`, { ca })).body.toString()).toBe('404 Not Found\n');
    const unknown = await get(`${base}/api/v2/all`, { ca });
    expect([unknown.status, unknown.body.toString()]).toEqual([404, '404 page not found\n']);
    const post = await get(`${base}/api/v1/all`, { ca, method: 'POST' });
    expect([post.status, post.body.toString(), post.headers.allow]).toEqual([405, 'Method Not Allowed\n', 'GET, HEAD']);
  });
});

describe('conditional requests and compression', () => {
  it('304 for a matching If-None-Match (strong, weak or *), 200 for another tag', async () => {
    for (const tag of [revision.etag, `W/${revision.etag}`, '*', `"other", ${revision.etag}`]) {
      const reply = await get(`${base}/api/v1/all`, { ca, headers: { 'If-None-Match': tag } });
      expect([reply.status, reply.body.length]).toEqual([304, 0]);
      expect(reply.headers.etag).toBe(revision.etag);
    }
    expect((await get(`${base}/api/v1/all`, { ca, headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it('304 when not modified since Last-Modified, 200 when modified since', async () => {
    const lastModified = revision.lastModified.toUTCString();
    const first = await get(`${base}/api/v1/metas?schema=olm.package`, { ca });
    expect(first.headers['last-modified']).toBe(lastModified);
    expect((await get(`${base}/api/v1/metas?schema=olm.package`, { ca, headers: { 'If-Modified-Since': lastModified } })).status).toBe(304);
    const before = new Date(revision.lastModified.getTime() - 1000).toUTCString();
    expect((await get(`${base}/api/v1/metas?schema=olm.package`, { ca, headers: { 'If-Modified-Since': before } })).status).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    expect((await get(`${base}/api/v1/all`, { ca, headers: { 'If-Modified-Since': lastModified, 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it('gives each filtered answer its own tag', async () => {
    const packages = await get(`${base}/api/v1/metas?schema=olm.package`, { ca });
    const channels = await get(`${base}/api/v1/metas?schema=olm.channel`, { ca });
    expect(new Set([packages.headers.etag, channels.headers.etag, revision.etag]).size).toBe(3);
    expect((await get(`${base}/api/v1/metas?schema=olm.package`, { ca, headers: { 'If-None-Match': String(packages.headers.etag) } })).status).toBe(304);
    expect((await get(`${base}/api/v1/metas?schema=olm.channel`, { ca, headers: { 'If-None-Match': String(packages.headers.etag) } })).status).toBe(200);
  });

  it('gzips for a client that accepts it, and the body gunzips to the plain one', async () => {
    const plain = await get(`${base}/api/v1/all`, { ca });
    const zipped = await get(`${base}/api/v1/all`, { ca, headers: { 'Accept-Encoding': 'br;q=1, gzip;q=0.8' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    // Compressed once at write, so its length is known.
    expect(Number(zipped.headers['content-length'])).toBe(revision.gzipSize);
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    expect((await get(`${base}/api/v1/all`, { ca, headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': String(zipped.headers.etag) } })).status).toBe(304);
    expect((await get(`${base}/api/v1/all`, { ca, headers: { 'Accept-Encoding': 'gzip;q=0' } })).headers['content-encoding']).toBeUndefined();
    const filtered = await get(`${base}/api/v1/metas?package=gpu-operator-certified`, { ca, headers: { 'Accept-Encoding': 'gzip' } });
    expect(gunzipSync(filtered.body).equals((await get(`${base}/api/v1/metas?package=gpu-operator-certified`, { ca })).body)).toBe(true);
  });
});

describe("operator-controller's client", () => {
  it('reads /all as a JSON stream, files it per package and loads it back to the same catalog', async () => {
    // Its cache walks the metas of the stream and writes each package's to <package>/catalog.json.
    const body = (await get(new URL('api/v1/all', `${base}/`).toString(), { ca })).body;
    const byPackage = new Map<string, string[]>();
    for (const line of body.toString('utf8').split('\n').slice(0, -1)) {
      const meta = JSON.parse(line) as Record<string, unknown>;
      for (const key of ['schema', 'package', 'name'] as const) {
        if (key in meta) expect(typeof meta[key]).toBe('string');
      }
      expect(meta.schema === 'olm.package' ? meta.name : meta.package).toEqual(expect.any(String));
      const owner = String(meta.schema === 'olm.package' ? meta.name : meta.package);
      byPackage.set(owner, [...(byPackage.get(owner) ?? []), line]);
    }
    const cache = join(work, 'client-cache');
    for (const [owner, lines] of byPackage) {
      await mkdir(join(cache, owner), { recursive: true });
      await writeFile(join(cache, owner, 'catalog.json'), `${lines.join('\n')}\n`);
    }
    const reloaded = await loadCatalog(cache);
    expect([...reloaded.packages.keys()]).toEqual([...catalog.packages.keys()]);
    for (const [name, item] of catalog.packages) {
      const again = reloaded.package(name)!;
      expect([...again.channels.keys()]).toEqual([...item.channels.keys()]);
      expect([...again.bundles.keys()]).toEqual([...item.bundles.keys()]);
      expect(again.defaultChannel).toBe(item.defaultChannel);
    }
  });
});
