import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@olm/controller-runtime';
import { createCatalogSourceTypes, loadCatalog } from '@olm/registry';
import { writeCatalog, type PackageSpec } from '../test/fbc-catalog.js';
import { CatalogSourceConnections, catalogSourceRevision } from './catalog-source-connections.js';

const key = { namespace: 'olm', name: 'local' };
const etcd = (versions: string[]): PackageSpec => ({
  name: 'etcd',
  defaultChannel: 'alpha',
  channels: { alpha: versions.map((version, index) => ({ name: `etcd.v${version}`, ...(index > 0 ? { replaces: `etcd.v${versions[index - 1]}` } : {}) })) },
  bundles: versions.map((version) => ({ name: `etcd.v${version}`, version })),
});
const bundleNames = (content: Awaited<ReturnType<CatalogSourceConnections['content']>>) => [...content.packages.get('etcd')!.bundles.keys()];

let directory: string;
let clock: number;
let snapshots: number;
let connections: CatalogSourceConnections;

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'olm-catalog-cache-'));
  writeCatalog(directory, [etcd(['0.9.0'])]);
  clock = 0;
  snapshots = 0;
  connections = new CatalogSourceConnections({
    sourceTypes: () => new Map(createCatalogSourceTypes({ loadDirectory: (path) => loadCatalog(path) }).map((type) => [type.sourceType, type])),
    ttlMs: 60_000,
    now: () => clock,
    logger: silentLogger,
    onSnapshot: () => (snapshots += 1),
  });
  await connections.connect(key, 'fbc-directory', { sourceType: 'fbc-directory', address: directory });
});
afterEach(async () => {
  await connections.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('catalog content cache', () => {
  it('reuses a snapshot within the TTL and takes a new one after it', async () => {
    expect(bundleNames(await connections.content(key))).toEqual(['etcd.v0.9.0']);
    writeCatalog(directory, [etcd(['0.9.0', '0.9.1'])]);
    clock = 59_000;
    expect(bundleNames(await connections.content(key))).toEqual(['etcd.v0.9.0']);
    expect(snapshots).toBe(1);
    clock = 60_000;
    expect(bundleNames(await connections.content(key))).toEqual(['etcd.v0.9.0', 'etcd.v0.9.1']);
    expect(snapshots).toBe(2);
  });

  it('takes a new snapshot when the CatalogSource changes (generation, labels or annotations), or when told to', async () => {
    const source = { metadata: { generation: 1, annotations: {} } };
    await connections.content(key, catalogSourceRevision(source));
    writeCatalog(directory, [etcd(['0.9.0', '0.9.1'])]);
    expect(bundleNames(await connections.content(key, catalogSourceRevision(source)))).toEqual(['etcd.v0.9.0']);
    const annotated = { metadata: { generation: 1, annotations: { refresh: 'now' } } };
    expect(bundleNames(await connections.content(key, catalogSourceRevision(annotated)))).toEqual(['etcd.v0.9.0', 'etcd.v0.9.1']);
    writeCatalog(directory, [etcd(['0.9.0', '0.9.1', '0.9.2'])]);
    connections.invalidate(key);
    expect(bundleNames(await connections.content(key, catalogSourceRevision(annotated)))).toHaveLength(3);
    expect(snapshots).toBe(3);
  });

  it('keeps serving the last snapshot when a reload fails, and fails without one', async () => {
    await connections.content(key);
    rmSync(directory, { recursive: true, force: true });
    clock = 120_000;
    expect(bundleNames(await connections.content(key))).toEqual(['etcd.v0.9.0']);
    const other = { namespace: 'olm', name: 'gone' };
    await connections.connect(other, 'fbc-directory', { sourceType: 'fbc-directory', address: directory });
    await expect(connections.content(other)).rejects.toThrow();
    await expect(connections.content({ namespace: 'olm', name: 'never-connected' })).rejects.toThrow(
      'no registry client established for catalogsource olm/never-connected',
    );
  });

  it('loads once for concurrent readers, and drops the content when the spec changes', async () => {
    const [a, b] = await Promise.all([connections.content(key), connections.content(key)]);
    expect(a).toBe(b);
    expect(snapshots).toBe(1);
    const elsewhere = mkdtempSync(join(tmpdir(), 'olm-catalog-cache-'));
    try {
      writeCatalog(elsewhere, [etcd(['1.0.0'])]);
      await connections.connect(key, 'fbc-directory', { sourceType: 'fbc-directory', address: elsewhere });
      expect(connections.hasContent(key)).toBe(false);
      expect(bundleNames(await connections.content(key))).toEqual(['etcd.v1.0.0']);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
