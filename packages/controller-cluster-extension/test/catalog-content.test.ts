import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCatalogContent, startCatalogHttpServer, writeCatalogContent, type CatalogContentStore, type CatalogHttpServer } from '@olm/catalog-http';
import { loadCatalog } from '@olm/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogContentCache } from '../src/catalog-content.js';
import { exampleCatalogDirectory } from './helpers.js';

describe('CatalogContentCache against catalogd\'s HTTPS API (the example catalog)', () => {
  let scratch: string;
  let store: CatalogContentStore;
  let server: CatalogHttpServer;
  let requests = 0;
  let size = 0;
  const served = (contentKey: string, name = 'acme') => ({ name, baseUrl: `${server.url}/catalogs/${name}`, contentKey });

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'catalog-content-test-'));
    const revision = await writeCatalogContent(join(scratch, 'acme'), await loadCatalog(exampleCatalogDirectory));
    size = revision.size;
    store = await openCatalogContent(join(scratch, 'acme'));
    server = await startCatalogHttpServer({ catalog: () => (requests++, store) });
  });
  afterAll(async () => {
    await server?.stop();
    await store?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('reads /api/v1/all trusting the given CA, and reads it again only when the resolved source or unpack time changes', async () => {
    const cache = new CatalogContentCache({ ca: server.certificate });
    requests = 0;
    const [first, second] = await Promise.all([cache.get(served('digest-1@t1')), cache.get(served('digest-1@t1'))]);
    expect(first.package('acme-database')?.bundles.size).toBe(5);
    expect(second).toBe(first);
    expect(await cache.get(served('digest-1@t1'))).toBe(first);
    expect(requests).toBe(1);
    const changed = await cache.get(served('digest-2@t2'));
    expect(changed).not.toBe(first);
    expect(requests).toBe(2);
  });

  it('refuses an untrusted server with a message naming the catalog and URL', async () => {
    await expect(new CatalogContentCache().get(served('k'))).rejects.toThrow(/^reading ClusterCatalog "acme" content at https:\/\/127\.0\.0\.1:\d+\/catalogs\/acme\/api\/v1\/all: .*certificate/);
  });

  it('refuses a catalog larger than maxCatalogBytes, naming the option', async () => {
    const cache = new CatalogContentCache({ ca: server.certificate, limits: { maxCatalogBytes: 1000 } });
    await expect(cache.get(served('k'))).rejects.toMatchObject({
      code: 'OLM_CLUSTER_EXTENSION_CATALOG_TOO_LARGE',
      message: expect.stringContaining("more than 1000 bytes (at least"),
    });
    await expect(cache.get(served('k'))).rejects.toThrow(/raise the controller's option catalogContentLimits\.maxCatalogBytes/);
  });

  it('keeps at most maxCachedBytes of catalogs together, dropping the least recently used', async () => {
    const cache = new CatalogContentCache({ ca: server.certificate, limits: { maxCachedBytes: Math.floor(size * 2.5) } });
    requests = 0;
    const a = await cache.get(served('k', 'a'));
    await cache.get(served('k', 'b'));
    expect(await cache.get(served('k', 'a'))).toBe(a); // a used last: b is the oldest now
    await cache.get(served('k', 'c'));
    expect(requests).toBe(3);
    expect(await cache.get(served('k', 'a'))).toBe(a);
    await cache.get(served('k', 'b'));
    expect(requests).toBe(4);
  });
});
