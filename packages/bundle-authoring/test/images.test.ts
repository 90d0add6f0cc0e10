import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createOciRegistryClient, createOciRegistryPusher, extractBundleFiles, MediaTypes, readLayerEntries, sha256Digest } from '@olm/bundle-puller/registry';
import { loadDeclarativeConfig, renderCatalog } from '@olm/registry';
import { dockerRegistryBinary, startDockerRegistry, type DockerRegistry } from '@olm/testing';
import jsYaml from 'js-yaml';
import tarStream from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundleImage, buildCatalogImage, buildOciImage, pushContentOf, pushOciImage, readDirectoryFiles, renderImage, writeOciLayout } from '../src/index.js';
import { exampleBundles, exampleCatalog } from './example-bundles.js';

const binary = dockerRegistryBinary();
const backup = exampleBundles[0]!;

const bundleFilesOf = async (dir: string) => new Map([...(await readDirectoryFiles(dir))].filter(([path]) => /^(manifests|metadata)\//.test(path)));

describe('bundle and catalog images', () => {
  it('builds the same bytes from the same bundle, whenever it is built', async () => {
    const first = await buildBundleImage(backup);
    const second = await buildBundleImage(backup);
    expect(second.image.manifestDigest).toBe(first.image.manifestDigest);
    expect(second.image.layer.equals(first.image.layer)).toBe(true);
  });

  it('lays the layer out deterministically: sorted paths, root-owned, dated the epoch, directories first', async () => {
    const { image } = await buildBundleImage(backup);
    const extract = tarStream.extract();
    const headers: Array<{ name: string; mode?: number; uid?: number; gid?: number; mtime?: Date; type?: string | null }> = [];
    const reading = (async () => {
      for await (const entry of extract) {
        headers.push(entry.header);
        entry.resume();
      }
    })();
    extract.end(gunzipSync(image.layer));
    await reading;
    expect(headers.map((header) => header.name)).toEqual([
      'manifests/',
      'manifests/acme-backup.clusterserviceversion.yaml',
      'manifests/acme.example.com_backups.yaml',
      'metadata/',
      'metadata/annotations.yaml',
    ]);
    for (const header of headers) {
      expect(header).toMatchObject({ uid: 0, gid: 0, mtime: new Date(0), mode: header.type === 'directory' ? 0o755 : 0o644 });
    }
  });

  it('writes an OCI image layout whose index leads to the manifest, the labels and the files', async () => {
    const { image } = await buildBundleImage(backup);
    const layouts = await Promise.all([0, 1].map(() => mkdtemp(join(tmpdir(), 'olm-layout-'))));
    for (const layout of layouts) await writeOciLayout(layout, image, 'v0.1.0');
    const [layout, again] = layouts as [string, string];
    expect(JSON.parse(await readFile(join(layout, 'oci-layout'), 'utf8'))).toEqual({ imageLayoutVersion: '1.0.0' });
    const index = JSON.parse(await readFile(join(layout, 'index.json'), 'utf8'));
    expect(await readFile(join(again, 'index.json'), 'utf8')).toBe(await readFile(join(layout, 'index.json'), 'utf8'));
    expect(index.manifests).toEqual([{ mediaType: MediaTypes.ociManifest, digest: image.manifestDigest, size: image.manifest.length, annotations: { 'org.opencontainers.image.ref.name': 'v0.1.0' } }]);
    const blob = (digest: string) => readFile(join(layout, 'blobs', 'sha256', digest.slice('sha256:'.length)));
    const manifestBytes = await blob(index.manifests[0].digest);
    expect(sha256Digest(manifestBytes)).toBe(index.manifests[0].digest);
    const manifest = JSON.parse(manifestBytes.toString());
    expect(manifest.mediaType).toBe(MediaTypes.ociManifest);
    expect(manifest.layers.map((layer: { mediaType: string }) => layer.mediaType)).toEqual([MediaTypes.ociLayerGzip]);
    const config = JSON.parse((await blob(manifest.config.digest)).toString());
    expect(config.config.Labels).toMatchObject({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'acme-backup',
      'operators.operatorframework.io.bundle.channels.v1': 'stable',
    });
    const layer = await blob(manifest.layers[0].digest);
    expect(sha256Digest(layer)).toBe(manifest.layers[0].digest);
    expect(config.rootfs.diff_ids).toEqual([sha256Digest(gunzipSync(layer))]);
    const entries = await readLayerEntries(layer, 'the layout layer');
    const files = new Map(entries.filter((entry) => entry.type === 'file').map((entry) => [entry.path, entry.data]));
    expect(files).toEqual(await bundleFilesOf(backup));
  });

  it('refuses to build a bundle with validation errors, listing them', async () => {
    await expect(buildBundleImage(join(exampleCatalog, 'acme-backup'))).rejects.toThrow(/is not valid .*\n.*ERROR manifests\/: is missing or empty \[bundle-layout\]/);
  });
});

describe.skipIf(!binary)('images pushed to a real registry', () => {
  let registry: DockerRegistry;
  beforeAll(async () => {
    registry = await startDockerRegistry(binary!, await mkdtemp(join(tmpdir(), 'olm-authoring-registry-')));
  });
  afterAll(async () => registry?.stop());

  it('pushes a bundle image that the bundle puller pulls back with the same manifests', async () => {
    const { image } = await buildBundleImage(backup);
    const reference = `${registry.host}/acme/acme-backup-bundle:v0.1.0`;
    const progress: string[] = [];
    const pushed = await pushOciImage(image, reference, { onProgress: (step) => progress.push(`${step.done}/${step.total} ${step.what} ${step.sent}/${step.bytes}`) });
    expect(pushed.digest).toBe(image.manifestDigest);
    expect(progress).toEqual([
      `0/3 blob ${image.layerDigest} 0/${image.layer.length}`,
      `0/3 blob ${image.layerDigest} ${image.layer.length}/${image.layer.length}`,
      `1/3 blob ${image.configDigest} 0/${image.config.length}`,
      `1/3 blob ${image.configDigest} ${image.config.length}/${image.config.length}`,
      `2/3 manifest 0/${image.manifest.length}`,
    ]);
    const pulled = await createOciRegistryClient().pullImage(reference);
    expect(pulled.digest).toBe(image.manifestDigest);
    expect(await extractBundleFiles(pulled.layers, reference)).toEqual(await bundleFilesOf(backup));
    // pushed again: the registry has the blobs, only the manifest is sent
    const skipped: boolean[] = [];
    await pushOciImage(image, reference, { onProgress: (step) => skipped.push(step.skipped) });
    expect(skipped).toEqual([true, true, false]);
  });

  it('streams a layer of several MiB in slices, reporting each, and the registry stores it whole', async () => {
    // random bytes do not compress: the gzip layer is as large as the file
    const image = await buildOciImage(new Map([['configs/blob.bin', randomBytes(3 * 1024 * 1024 + 5)]]), {});
    const reference = `${registry.host}/acme/large:1`;
    const sent: number[] = [];
    await pushOciImage(image, reference, { onProgress: (step) => step.what === `blob ${image.layerDigest}` && sent.push(step.sent) });
    expect(sent).toEqual([0, 1 << 20, 2 << 20, 3 << 20, image.layer.length]);
    const pulled = await createOciRegistryClient().pullImage(reference);
    const chunks: Buffer[] = [];
    for await (const chunk of pulled.layers[0]!.open()) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(image.layer)).toBe(true);
  });

  it('renders a catalog image to the same FBC as the catalog directory', async () => {
    const image = await buildCatalogImage(exampleCatalog);
    expect(image.labels).toEqual({ 'operators.operatorframework.io.index.configs.v1': '/configs' });
    const reference = `${registry.host}/acme/catalog:latest`;
    await pushOciImage(image, reference);
    const fromImage = await renderImage(reference);
    const fromDirectory = await loadDeclarativeConfig(exampleCatalog);
    expect(renderCatalog(fromImage, 'json')).toBe(renderCatalog(fromDirectory, 'json'));
    expect(renderCatalog(fromImage, 'yaml')).toBe(renderCatalog(fromDirectory, 'yaml'));
  });

  it('renders a bundle image as opm does: the catalog bundle’s properties, its CSV metadata and related images', async () => {
    const { image } = await buildBundleImage(backup);
    const reference = `${registry.host}/acme/acme-backup-bundle:render`;
    await pushOciImage(image, reference);
    const rendered = await renderImage(reference);
    expect(rendered.bundles).toHaveLength(1);
    const bundle = rendered.bundles[0]!;
    expect(bundle).toMatchObject({ schema: 'olm.bundle', name: 'acme-backup.v0.1.0', package: 'acme-backup', image: reference });
    // the example catalog's bundle has the same properties, and its manifests as olm.bundle.object
    const catalog = jsYaml.loadAll(await readFile(join(exampleCatalog, 'acme-backup', 'catalog.yaml'), 'utf8')) as Array<Record<string, any>>;
    const inCatalog = catalog.find((blob) => blob.schema === 'olm.bundle' && blob.name === 'acme-backup.v0.1.0')!;
    const withoutManifests = (properties: ReadonlyArray<{ type: string }>) => properties.filter((property) => property.type !== 'olm.bundle.object' && property.type !== 'olm.csv.metadata');
    expect(withoutManifests(bundle.properties)).toEqual(withoutManifests(inCatalog.properties));
    expect(bundle.properties.at(-1)).toMatchObject({ type: 'olm.csv.metadata', value: { displayName: 'Acme Backup', crdDescriptions: { owned: [expect.objectContaining({ kind: 'Backup' })] } } });
    expect(bundle.relatedImages).toEqual([
      { name: '', image: reference },
      { name: 'manager', image: 'registry.example.com/acme/acme-backup-operator:v0.1.0' },
    ]);
  });

  it('reports a manifest the registry refuses with the registry\'s own error', async () => {
    const image = await buildOciImage(new Map([['configs/a.json', Buffer.from('{}')]]), {});
    // the config blob is left out: the registry refuses a manifest naming a blob it does not have
    const content = { ...pushContentOf(image), blobs: [{ digest: image.layerDigest, bytes: image.layer }] };
    await expect(createOciRegistryPusher().pushImage(`${registry.host}/acme/broken:1`, content)).rejects.toThrow(
      /^pushing 127\.0\.0\.1:\d+\/acme\/broken:1: the registry answered HTTP 400 \(MANIFEST_BLOB_UNKNOWN: blob unknown to registry\) for manifest 1$/,
    );
  });

  it('refuses an image that is neither a bundle nor a catalog, naming its labels', async () => {
    const image = await buildOciImage(new Map([['app/main.js', Buffer.from('1')]]), { 'org.opencontainers.image.title': 'an app' });
    const reference = `${registry.host}/acme/app:1`;
    await pushOciImage(image, reference);
    await expect(renderImage(reference)).rejects.toThrow(/its kind could not be determined, found labels\n {2}org.opencontainers.image.title=an app/);
  });

  it('stops reading a catalog image past its limits, saying how to raise them', async () => {
    const image = await buildCatalogImage(exampleCatalog);
    const reference = `${registry.host}/acme/catalog:limits`;
    await pushOciImage(image, reference);
    const limits = { maxLayers: 4, maxCompressedBytes: 1 << 30, maxUncompressedBytes: 1 << 30, maxFileBytes: 1 << 20, maxManifestBytes: 20_000, maxFiles: 100 };
    await expect(renderImage(reference, { limits, limitHints: { maxManifestBytes: '--image-max-content-bytes' } })).rejects.toThrow(
      /over its limit of 20000 bytes of manifests\/ and metadata\/ files: .*; raise --image-max-content-bytes if the image really is this large$/,
    );
  });
});
