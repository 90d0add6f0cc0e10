import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteServerCacheFinalizer, Kinds, MetadataNameLabel, SourceDirectoryAnnotation, type ClusterCatalog } from '@olm/api';
import { eventually, startTestCluster, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blobKeysOf,
  blobKeysOfJsonLines,
  clusterCatalog,
  dockerRegistryBinary,
  exampleCatalogDirectory,
  httpsGet,
  pushCatalogImage,
  startClusterCatalogController,
  startDockerRegistry,
  type DockerRegistry,
  type StoredClusterCatalog,
} from './helpers.js';

const binary = dockerRegistryBinary();
if (!binary) console.warn('docker-registry not found (scripts/setup.sh installs it; $DOCKER_REGISTRY overrides): the ClusterCatalog image tests are skipped');

const conditionOf = (catalog: Pick<ClusterCatalog, 'status'> | undefined, type: string) => {
  const condition = catalog?.status?.conditions?.find((item) => item.type === type);
  return condition ? { status: condition.status, reason: condition.reason, message: condition.message } : undefined;
};

describe.skipIf(!binary)('ClusterCatalog controller against a real registry and the local API server', () => {
  let cluster: TestCluster;
  let registry: DockerRegistry;
  let controller: Awaited<ReturnType<typeof startClusterCatalogController>>;
  let scratch: string;
  let ca: string;
  const get = (name: string) => cluster.client.get<StoredClusterCatalog>({ ...Kinds.clusterCatalog, name }).catch(() => undefined);
  const serving = async (name: string, check: (catalog: StoredClusterCatalog) => boolean = () => true) =>
    eventually(
      async () => {
        const catalog = await get(name);
        if (conditionOf(catalog, 'Serving')?.status !== 'True' || !check(catalog!)) throw new Error(`${name} not serving yet: ${JSON.stringify(catalog?.status)}`);
        return catalog!;
      },
      { timeoutMs: 30_000 },
    );

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'cluster-catalog-test-'));
    cluster = await startTestCluster();
    registry = await startDockerRegistry(binary!, join(scratch, 'registry'));
    controller = await startClusterCatalogController(cluster, {
      cacheDirectory: join(scratch, 'cache'),
      directories: { examples: exampleCatalogDirectory },
      pollMinuteMs: 300,
      // far above the example catalog (59 KB in 3 files), low enough for the hostile images below
      catalogImageLimits: { maxManifestBytes: 512 * 1024, maxFiles: 100 },
    });
    ca = controller.controller.server!.certificate!;
  });
  afterAll(async () => {
    await controller?.stop();
    await registry?.stop();
    await cluster?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('unpacks a catalog image by tag and serves /api/v1/all at status.urls.base, with upstream status, label and finalizer', async () => {
    const image = await pushCatalogImage(registry, 'acme/catalog', 'latest', exampleCatalogDirectory);
    await cluster.client.create(clusterCatalog('acme', { source: { type: 'Image', image: { ref: image.reference } } }));
    const catalog = await serving('acme');
    expect(conditionOf(catalog, 'Progressing')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Successfully unpacked and stored content from resolved source' });
    expect(conditionOf(catalog, 'Serving')).toEqual({ status: 'True', reason: 'Available', message: 'Serving desired content from resolved source' });
    expect(catalog.status?.resolvedSource).toEqual({ type: 'Image', image: { ref: `${registry.host}/acme/catalog@${image.manifestDigest}` } });
    expect(catalog.status?.urls?.base).toBe(`${controller.controller.server!.url}/catalogs/acme`);
    expect(catalog.status?.lastUnpacked).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(catalog.spec).toMatchObject({ priority: 0, availabilityMode: 'Available' });
    expect(catalog.metadata.labels).toEqual({ [MetadataNameLabel]: 'acme' });
    expect(catalog.metadata.finalizers).toEqual([DeleteServerCacheFinalizer]);
    for (const condition of catalog.status?.conditions ?? []) expect(condition.observedGeneration).toBe(catalog.metadata.generation);

    const all = await httpsGet(`${catalog.status!.urls!.base}/api/v1/all`, ca);
    expect(all.status).toBe(200);
    expect(blobKeysOfJsonLines(all.body)).toEqual(await blobKeysOf(exampleCatalogDirectory));
    const packages = await httpsGet(`${catalog.status!.urls!.base}/api/v1/metas?schema=olm.package`, ca);
    expect(blobKeysOfJsonLines(packages.body)).toEqual(['olm.package/acme-backup/acme-backup', 'olm.package/acme-database/acme-database', 'olm.package/acme-monitoring/acme-monitoring']);
  });

  it('picks up a moved tag on the next poll (new digest, new content), and leaves lastUnpacked alone while the digest stays', async () => {
    const first = await pushCatalogImage(registry, 'acme/polled', 'stable', exampleCatalogDirectory);
    await cluster.client.create(clusterCatalog('polled', { source: { type: 'Image', image: { ref: first.reference, pollIntervalMinutes: 1 } } }));
    const before = await serving('polled', (catalog) => catalog.status?.resolvedSource?.image.ref.endsWith(first.manifestDigest) === true);
    // several polls of the same digest later, nothing was unpacked again
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await get('polled'))?.status?.lastUnpacked).toBe(before.status?.lastUnpacked);

    const moved = await pushCatalogImage(registry, 'acme/polled', 'stable', join(exampleCatalogDirectory, 'acme-database'));
    expect(moved.manifestDigest).not.toBe(first.manifestDigest);
    const after = await serving('polled', (catalog) => catalog.status?.resolvedSource?.image.ref === `${registry.host}/acme/polled@${moved.manifestDigest}`);
    const all = await httpsGet(`${after.status!.urls!.base}/api/v1/all`, ca);
    expect(blobKeysOfJsonLines(all.body)).toEqual(await blobKeysOf(join(exampleCatalogDirectory, 'acme-database')));
  });

  it('reads the file-based catalog from the directory the configs label names', async () => {
    const image = await pushCatalogImage(registry, 'acme/elsewhere', 'v1', exampleCatalogDirectory, { prefix: 'srv/catalog', configsLabel: '/srv/catalog/' });
    await cluster.client.create(clusterCatalog('elsewhere', { source: { type: 'Image', image: { ref: image.reference } } }));
    const catalog = await serving('elsewhere');
    expect(blobKeysOfJsonLines((await httpsGet(`${catalog.status!.urls!.base}/api/v1/all`, ca)).body)).toEqual(await blobKeysOf(exampleCatalogDirectory));
  });

  it('a missing image gives Progressing True/Retrying with a message naming it, and is not served', async () => {
    const ref = `${registry.host}/acme/missing:v9`;
    await cluster.client.create(clusterCatalog('missing', { source: { type: 'Image', image: { ref } } }));
    const progressing = await eventually(async () => {
      const found = conditionOf(await get('missing'), 'Progressing');
      if (found?.reason !== 'Retrying') throw new Error(`not retrying yet: ${JSON.stringify(found)}`);
      return found;
    });
    expect(progressing.status).toBe('True');
    expect(progressing.message).toContain('source catalog content: ');
    expect(progressing.message).toContain(ref);
    expect((await get('missing'))?.status?.urls).toBeUndefined();
    expect((await httpsGet(`${controller.controller.server!.url}/catalogs/missing/api/v1/all`, ca)).status).toBe(404);
  });

  it('bounds the configs in aggregate: many files each under every per-file limit are refused together, with the limit and how to raise it', async () => {
    const manyFiles = join(scratch, 'many-files');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(manyFiles, { recursive: true });
    // 40 files of 20 KB: each far under maxFileBytes, 800 KB together
    for (let index = 0; index < 40; index++) writeFileSync(join(manyFiles, `p${index}.json`), JSON.stringify({ schema: 'olm.package', name: `p${index}`, description: 'x'.repeat(20_000) }));
    const image = await pushCatalogImage(registry, 'acme/many-files', 'v1', manyFiles);
    await cluster.client.create(clusterCatalog('many-files', { source: { type: 'Image', image: { ref: image.reference } } }));
    const progressing = await eventually(async () => {
      const found = conditionOf(await get('many-files'), 'Progressing');
      if (found?.reason !== 'Retrying') throw new Error(`not retrying yet: ${JSON.stringify(found)}`);
      return found;
    });
    expect(progressing.message).toMatch(
      new RegExp(`^source catalog content: catalog image ${image.reference} is over its limit of 524288 bytes of catalog files: file configs/p\\d+\\.json of layer sha256:[0-9a-f]{64} \\(2 of 2\\) of .* takes the files kept so far past it \\(\\d+ bytes\\); if the catalog really is this large, raise the ClusterCatalog controller's option catalogImageLimits\\.maxManifestBytes`),
    );
    expect((await httpsGet(`${controller.controller.server!.url}/catalogs/many-files/api/v1/all`, ca)).status).toBe(404);
  });

  it('a digest ref with pollIntervalMinutes is Blocked (the CEL rule the local API server does not run)', async () => {
    const ref = `${registry.host}/acme/catalog@sha256:${'a'.repeat(64)}`;
    await cluster.client.create(clusterCatalog('pinned-polled', { source: { type: 'Image', image: { ref, pollIntervalMinutes: 5 } } }));
    const progressing = await eventually(async () => {
      const found = conditionOf(await get('pinned-polled'), 'Progressing');
      if (!found) throw new Error('no Progressing condition yet');
      return found;
    });
    expect(progressing).toEqual({ status: 'False', reason: 'Blocked', message: 'cannot specify pollIntervalMinutes while using digest-based image' });
  });

  it('serves a configured directory for a catalog annotated with its name; an unknown name is Blocked', async () => {
    const ref = 'registry.example.com/acme/examples:latest';
    await cluster.client.create(clusterCatalog('from-directory', { source: { type: 'Image', image: { ref } } }, { [SourceDirectoryAnnotation]: 'examples' }));
    const catalog = await serving('from-directory');
    expect(catalog.status?.resolvedSource?.image.ref).toMatch(/^registry\.example\.com\/acme\/examples@sha256:[0-9a-f]{64}$/);
    expect(blobKeysOfJsonLines((await httpsGet(`${catalog.status!.urls!.base}/api/v1/all`, ca)).body)).toEqual(await blobKeysOf(exampleCatalogDirectory));

    await cluster.client.create(clusterCatalog('unknown-directory', { source: { type: 'Image', image: { ref } } }, { [SourceDirectoryAnnotation]: 'nowhere' }));
    const blocked = await eventually(async () => {
      const found = conditionOf(await get('unknown-directory'), 'Progressing');
      if (!found) throw new Error('no Progressing condition yet');
      return found;
    });
    expect(blocked.status).toBe('False');
    expect(blocked.reason).toBe('Blocked');
    expect(blocked.message).toContain('names catalog directory "nowhere", which this controller was not given (it has "examples")');
  });

  it('Unavailable stops serving (404, Serving False/UserSpecifiedUnavailable), Available serves again, and deleting removes the content', async () => {
    const image = await pushCatalogImage(registry, 'acme/toggled', 'v1', exampleCatalogDirectory);
    await cluster.client.create(clusterCatalog('toggled', { source: { type: 'Image', image: { ref: image.reference } } }));
    const base = (await serving('toggled')).status!.urls!.base;
    expect((await httpsGet(`${base}/api/v1/all`, ca)).status).toBe(200);

    await cluster.client.patch({ ...Kinds.clusterCatalog, name: 'toggled' }, { spec: { availabilityMode: 'Unavailable' } });
    const unavailable = await eventually(async () => {
      const catalog = await get('toggled');
      if (conditionOf(catalog, 'Serving')?.reason !== 'UserSpecifiedUnavailable') throw new Error(`still serving: ${JSON.stringify(catalog?.status)}`);
      return catalog!;
    });
    expect(conditionOf(unavailable, 'Serving')).toEqual({ status: 'False', reason: 'UserSpecifiedUnavailable', message: 'Catalog availability mode is set to Unavailable' });
    expect(conditionOf(unavailable, 'Progressing')).toEqual({ status: 'True', reason: 'Succeeded', message: 'Catalog availability mode is set to Unavailable' });
    expect(unavailable.status).not.toHaveProperty('urls');
    expect(unavailable.status).not.toHaveProperty('resolvedSource');
    expect(unavailable.metadata.finalizers ?? []).toEqual([]);
    const notFound = await httpsGet(`${base}/api/v1/all`, ca);
    expect(notFound).toEqual({ status: 404, body: '404 Not Found\n' });
    expect(existsSync(join(scratch, 'cache', 'toggled'))).toBe(false);

    await cluster.client.patch({ ...Kinds.clusterCatalog, name: 'toggled' }, { spec: { availabilityMode: 'Available' } });
    await serving('toggled');
    expect((await httpsGet(`${base}/api/v1/all`, ca)).status).toBe(200);
    expect(existsSync(join(scratch, 'cache', 'toggled', 'catalog.jsonl'))).toBe(true);

    await cluster.client.delete({ ...Kinds.clusterCatalog, name: 'toggled' });
    await eventually(async () => {
      const left = await get('toggled');
      if (left) throw new Error(`ClusterCatalog toggled still exists: ${JSON.stringify(left.metadata)}`);
      return true;
    });
    expect((await httpsGet(`${base}/api/v1/all`, ca)).status).toBe(404);
    expect(existsSync(join(scratch, 'cache', 'toggled'))).toBe(false);
  });
});
