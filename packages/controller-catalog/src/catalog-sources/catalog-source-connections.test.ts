import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogBundle, CatalogBundleKey, CatalogSourceType, ConnectionState } from '@olm/core';
import { silentLogger } from '@olm/controller-runtime';
import { createCatalogSourceTypes, loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { startEndlessRegistry, type EndlessRegistry } from '@olm/registry/testing';
import { writeCatalog, type PackageSpec } from '../../test/fbc-catalog.js';
import { forResolution } from './catalog-content.js';
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

  it('sees the same revision whatever order the server returns labels and annotations in', () => {
    const sent = { metadata: { generation: 2, labels: { a: '1', b: '2' }, annotations: { x: 'y', z: 'w' } } };
    const returned = { metadata: { annotations: { z: 'w', x: 'y' }, labels: { b: '2', a: '1' }, generation: 2 } };
    expect(catalogSourceRevision(returned)).toBe(catalogSourceRevision(sent));
    expect(catalogSourceRevision({ metadata: { ...sent.metadata, labels: { a: '1' } } })).not.toBe(catalogSourceRevision(sent));
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

describe('manifests on demand (a gRPC registry)', () => {
  // The example catalog: every bundle has an image and olm.bundle.object manifests, which ListBundles leaves out.
  const exampleCatalog = fileURLToPath(new URL('../../../../examples/catalog', import.meta.url));
  const grpcKey = { namespace: 'olm', name: 'acme' };
  const propertyTypes = (bundle: CatalogBundle) => bundle.properties.map((property) => property.type);
  const manifestKinds = (bundle: CatalogBundle) =>
    bundle.properties
      .filter((property) => property.type === 'olm.bundle.object')
      .map((property) => (JSON.parse(Buffer.from((property.value as { data: string }).data, 'base64').toString('utf8')) as { kind: string }).kind);
  let server: RegistryServer;
  let fetched: string[];
  let grpcConnections: CatalogSourceConnections;

  beforeAll(async () => {
    server = await startRegistryServer({ catalog: await loadCatalog(exampleCatalog) });
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(async () => {
    fetched = [];
    const grpc = createCatalogSourceTypes().find((type) => type.sourceType === 'grpc')!;
    // The registry's own grpc source type, noting each bundle it is asked for.
    const noting: CatalogSourceType = {
      sourceType: 'grpc',
      async open(request) {
        const connection = await grpc.open(request);
        const loadBundle = connection.loadBundle?.bind(connection);
        if (!connection.loadWithoutManifests || !loadBundle) throw new Error('the grpc source type should fetch manifests on demand');
        return { ...connection, loadBundle: (bundle: CatalogBundleKey) => (fetched.push(bundle.name), loadBundle(bundle)) };
      },
    };
    grpcConnections = new CatalogSourceConnections({ sourceTypes: () => new Map([['grpc', noting]]), ttlMs: 60_000, now: () => 0, logger: silentLogger });
    await grpcConnections.connect(grpcKey, 'grpc', { sourceType: 'grpc', address: server.address });
  });
  afterEach(async () => {
    await grpcConnections.close();
  });

  it('keeps content without the manifests of image bundles, and fetches one bundle\'s when it is installed', async () => {
    const content = await grpcConnections.content(grpcKey);
    const listed = content.packages.get('acme-database')!.bundles.get('acme-database.v1.2.0')!;
    expect(listed.image).toBe('registry.example.com/acme/acme-database-bundle:v1.2.0');
    expect(propertyTypes(listed)).not.toContain('olm.bundle.object');
    expect(fetched).toEqual([]);

    const full = await grpcConnections.bundleWithManifests(content, listed, 'stable');
    expect(manifestKinds(full)).toContain('ClusterServiceVersion');
    // The same bundle a full load gives (then slimmed for resolution), and nothing else changed.
    const whole = await createCatalogSourceTypes().find((type) => type.sourceType === 'grpc')!.open({ ...grpcKey, spec: { address: server.address } });
    const reference = forResolution(await whole.load());
    await whole.close();
    expect(full).toEqual(reference.packages.get('acme-database')!.bundles.get('acme-database.v1.2.0'));
    expect(full.properties.filter((property) => property.type !== 'olm.bundle.object')).toEqual(listed.properties);
    expect(fetched).toEqual(['acme-database.v1.2.0']);
  });

  it('fetches a bundle once per snapshot, from a channel it is in', async () => {
    const content = await grpcConnections.content(grpcKey);
    const listed = content.packages.get('acme-database')!.bundles.get('acme-database.v1.0.0')!;
    // v1.0.0 is not in `fast`: asked for there, it is fetched from `stable`.
    const [a, b] = await Promise.all([grpcConnections.bundleWithManifests(content, listed, 'fast'), grpcConnections.bundleWithManifests(content, listed, 'stable')]);
    expect(a).toBe(b);
    expect(manifestKinds(a)).toContain('ClusterServiceVersion');
    expect(fetched).toEqual(['acme-database.v1.0.0']);
    grpcConnections.invalidate(grpcKey);
    const reloaded = await grpcConnections.content(grpcKey);
    expect(reloaded).not.toBe(content);
    await grpcConnections.bundleWithManifests(reloaded, reloaded.packages.get('acme-database')!.bundles.get('acme-database.v1.0.0')!, 'stable');
    expect(fetched).toEqual(['acme-database.v1.0.0', 'acme-database.v1.0.0']);
  });

  it('loads whole from a connection that offers only one of the two members', async () => {
    const grpc = createCatalogSourceTypes().find((type) => type.sourceType === 'grpc')!;
    const loads: string[] = [];
    const halfOffering: CatalogSourceType = {
      sourceType: 'grpc',
      async open(request) {
        const { loadBundle: _loadBundle, ...connection } = await grpc.open(request);
        return {
          ...connection,
          load: () => (loads.push('load'), connection.load()),
          loadWithoutManifests: () => (loads.push('loadWithoutManifests'), connection.loadWithoutManifests!()),
        };
      },
    };
    const half = new CatalogSourceConnections({ sourceTypes: () => new Map([['grpc', halfOffering]]), ttlMs: 60_000, now: () => 0, logger: silentLogger });
    try {
      await half.connect(grpcKey, 'grpc', { sourceType: 'grpc', address: server.address });
      const content = await half.content(grpcKey);
      const listed = content.packages.get('acme-database')!.bundles.get('acme-database.v1.2.0')!;
      expect(manifestKinds(listed)).toContain('ClusterServiceVersion');
      expect(await half.bundleWithManifests(content, listed, 'stable')).toBe(listed);
      expect(loads).toEqual(['load']);
    } finally {
      await half.close();
    }
  });

  it('returns bundles of content loaded whole as they are', async () => {
    const content = await connections.content(key);
    const bundle = content.packages.get('etcd')!.bundles.get('etcd.v0.9.0')!;
    expect(await connections.bundleWithManifests(content, bundle, 'alpha')).toBe(bundle);
  });
});

describe('health probes', () => {
  it('asks a connection that can be asked, and loads the first snapshot once it says READY; falls back to the load state otherwise', async () => {
    let answer: 'READY' | 'TRANSIENT_FAILURE' = 'TRANSIENT_FAILURE';
    let loads = 0;
    const timeouts: number[] = [];
    const probed: CatalogSourceType = {
      sourceType: 'probed',
      async open() {
        return {
          load: async () => {
            loads += 1;
            return loadCatalog(directory);
          },
          probe: async ({ timeoutMs }) => {
            timeouts.push(timeoutMs);
            return answer;
          },
          state: () => 'IDLE',
          close: async () => undefined,
        };
      },
    };
    const own = new CatalogSourceConnections({ sourceTypes: () => new Map([[probed.sourceType, probed]]), ttlMs: 60_000, now: () => clock, logger: silentLogger, probeTimeoutMs: 1_234 });
    try {
      await own.connect(key, 'probed', { sourceType: 'probed' });
      expect(await own.probe(key)).toBe('TRANSIENT_FAILURE');
      expect(loads).toBe(0);
      answer = 'READY';
      expect(await own.probe(key)).toBe('READY');
      expect(loads).toBe(1);
      expect(timeouts).toEqual([1_234, 1_234]);
    } finally {
      await own.close();
    }
    // The directory source has no probe: its health is its load's.
    expect(await connections.probe(key)).toBe('READY');
    rmSync(directory, { recursive: true, force: true });
    await connections.connect(key, 'fbc-directory', { sourceType: 'fbc-directory', address: join(directory, 'gone') });
    expect(await connections.probe(key)).toBe('TRANSIENT_FAILURE');
  });
});

describe('noticing a registry that may serve other content', () => {
  /** A source type whose connection's state, digest and health the test sets, as a registry's would change. */
  function changingSource() {
    const source = {
      listener: undefined as ((state: ConnectionState) => void) | undefined,
      health: 'READY' as ConnectionState,
      digest: 'sha256:1' as string | Error,
      loads: 0,
      held: undefined as Promise<void> | undefined,
    };
    const type: CatalogSourceType = {
      sourceType: 'changing',
      async open() {
        return {
          load: async () => {
            source.loads += 1;
            await source.held;
            return loadCatalog(directory);
          },
          probe: async () => source.health,
          watchState: (listener) => {
            source.listener = listener;
            return () => (source.listener = undefined);
          },
          contentDigest: async () => {
            if (source.digest instanceof Error) throw source.digest;
            return source.digest;
          },
          state: () => source.health,
          close: async () => undefined,
        };
      },
    };
    return Object.assign(source, { type });
  }
  let source: ReturnType<typeof changingSource>;
  let own: CatalogSourceConnections;
  let changed: string[];
  let states: ConnectionState[];

  beforeEach(async () => {
    source = changingSource();
    changed = [];
    states = [];
    own = new CatalogSourceConnections({
      sourceTypes: () => new Map([[source.type.sourceType, source.type]]),
      ttlMs: 60_000,
      now: () => clock,
      logger: silentLogger,
      onStateChange: (_key, state) => states.push(state),
      onContentChanged: (changedKey) => changed.push(changedKey.name),
    });
    await own.connect(key, 'changing', { sourceType: 'changing' });
  });
  afterEach(async () => {
    await own.close();
  });

  it('takes a connection that is READY again (a new registry process) as new content, even from a load already running', async () => {
    const emit = (...sequence: ConnectionState[]) => sequence.forEach((state) => source.listener!(state));
    clock = 1_000;
    emit('CONNECTING', 'READY');
    expect(own.connectedAt(key)).toBe(1_000);
    await own.content(key);
    await own.content(key);
    expect([source.loads, changed]).toEqual([1, []]);

    clock = 2_000;
    emit('IDLE', 'CONNECTING', 'READY');
    expect(states).toEqual(['CONNECTING', 'READY', 'IDLE', 'CONNECTING', 'READY']);
    expect(changed).toEqual(['local']);
    expect(own.connectedAt(key)).toBe(2_000);
    await own.content(key);
    expect(source.loads).toBe(2);

    // restarted again while a load runs: that load's content only stands in until the next one
    emit('IDLE');
    let release!: () => void;
    source.held = new Promise((resolve) => (release = resolve));
    emit('READY');
    const running = own.content(key);
    emit('IDLE', 'READY');
    release();
    await running;
    source.held = undefined;
    await own.content(key);
    expect(source.loads).toBe(4);
    expect(changed).toEqual(['local', 'local', 'local']);

    await own.remove(key);
    expect(source.listener).toBeUndefined();
  });

  it('takes a new content digest at a healthy probe, or health regained, as new content; the same digest or a failing one changes nothing', async () => {
    expect(await own.probe(key)).toBe('READY');
    expect(await own.probe(key)).toBe('READY');
    expect([source.loads, changed]).toEqual([1, []]);

    source.digest = 'sha256:2';
    expect(await own.probe(key)).toBe('READY');
    expect(changed).toEqual(['local']);
    await own.content(key);
    expect(source.loads).toBe(2);

    source.digest = new Error('ListPackages: unavailable');
    expect(await own.probe(key)).toBe('READY');
    source.digest = 'sha256:2';
    expect(await own.probe(key)).toBe('READY');
    expect(changed).toEqual(['local']);

    source.health = 'TRANSIENT_FAILURE';
    expect(await own.probe(key)).toBe('TRANSIENT_FAILURE');
    source.health = 'READY';
    expect(await own.probe(key)).toBe('READY');
    expect(changed).toEqual(['local', 'local']);
    await own.content(key);
    expect(source.loads).toBe(3);
  });
});

describe('a registry that streams without end', () => {
  let endless: EndlessRegistry;
  let hostile: CatalogSourceConnections;
  const endlessKey = { namespace: 'olm', name: 'endless' };
  beforeEach(async () => {
    endless = await startEndlessRegistry();
    hostile = new CatalogSourceConnections({
      sourceTypes: () => new Map(createCatalogSourceTypes({ grpc: { client: { maxStreamMessages: 500 } } }).map((type) => [type.sourceType, type])),
      ttlMs: 60_000,
      now: () => clock,
      logger: silentLogger,
    });
    await hostile.connect(endlessKey, 'grpc', { sourceType: 'grpc', address: endless.address });
  });
  afterEach(async () => {
    await hostile.close();
    await endless.stop();
  });

  it('is read again only after exponentially growing delays: ~11 reads over ten minutes of readers asking every second', async () => {
    for (clock = 0; clock < 600_000; clock += 1_000) {
      await expect(hostile.content(endlessKey)).rejects.toThrow(/CatalogSource olm\/endless: ListBundles on .*more than 500 messages on one stream \(limit maxStreamMessages\)/);
    }
    // Reads at 0, 1, 3, 7, 15, 31, 63, 127, 247, 367, 487 s (the delays double to 2 minutes; jitter only delays more).
    expect(endless.counts.listBundlesCalls).toBeGreaterThanOrEqual(9);
    expect(endless.counts.listBundlesCalls).toBeLessThanOrEqual(11);
    const failure = hostile.loadFailure(endlessKey);
    expect(failure?.attempts).toBe(endless.counts.listBundlesCalls);
    expect(failure!.retryAt - clock).toBeLessThanOrEqual(120_000);
    // The health service answers: the probe says why it is not READY by the failed load, without reading again.
    const reads = endless.counts.listBundlesCalls;
    expect(await hostile.probe(endlessKey)).toBe('TRANSIENT_FAILURE');
    expect(endless.counts.listBundlesCalls).toBe(reads);
  });

  it('forgets the backoff when the CatalogSource is reconnected (a spec change)', async () => {
    await expect(hostile.content(endlessKey)).rejects.toThrow(/maxStreamMessages/);
    await expect(hostile.content(endlessKey)).rejects.toThrow(/maxStreamMessages/);
    expect(endless.counts.listBundlesCalls).toBe(1);
    await hostile.connect(endlessKey, 'grpc', { sourceType: 'grpc', address: endless.address, displayName: 'changed' });
    expect(hostile.loadFailure(endlessKey)).toBeUndefined();
    await expect(hostile.content(endlessKey)).rejects.toThrow(/maxStreamMessages/);
    expect(endless.counts.listBundlesCalls).toBe(2);
  });
});
