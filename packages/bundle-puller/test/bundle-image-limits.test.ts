import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '@olm/core';
import { silentLogger } from '@olm/controller-runtime';
import { bundleUnpackFailureAnnotation, createBundlePuller, defaultBundleImageLimits, unpackedConfigMapName } from '../src/index.js';
import { completedPlan, condition, createOperatorNamespace, eventually, get, Kinds, startImageCatalog, subscription, unpackFailure, type ImageCatalogEnvironment } from './helpers.js';
import { dockerRegistryBinary, gzip, gzipZeros, imageOnlyPackage, pushImage, pushMinimalBundle, startDockerRegistry, tarLayer, thingCsvYaml, zeroFileLayer, type DockerRegistry, type PushedImage } from './oci-images.js';

const binary = dockerRegistryBinary();
if (!binary) console.warn('bundle image limit tests skipped: docker-registry not found (apt-get install docker-registry, or set DOCKER_REGISTRY to the binary)');

const MiB = 1024 * 1024;
/** Lowered for the catalog operator here, so 20 layers of 4 MiB of zeros are past it quickly. */
const loweredUncompressedBytes = 16 * MiB;

/** The highest resident set size of this process while `action` runs (sampled), above what it was before. */
async function rssGrowthDuring<T>(action: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  try {
    const result = await action();
    return { result, growth: Math.max(peak, process.memoryUsage.rss()) - before };
  } finally {
    clearInterval(sampler);
  }
}

describe.skipIf(!binary)('bundle images past their aggregate limits', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-bundle-limits-'));
  let environment: ImageCatalogEnvironment;
  let client: KubeClient;
  let images: DockerRegistry;
  const pushed: Record<string, PushedImage> = {};

  beforeAll(async () => {
    images = await startDockerRegistry(binary!, directory);
    const csvLayer = { bytes: await tarLayer([{ name: 'manifests/csv.yaml', content: thingCsvYaml }]), gzipped: false };
    // 20 distinct layers, each 4 MiB of zeros outside manifests/ (~4 KiB compressed)
    const fourMiBZeros = await gzipZeros(4 * MiB + 1024);
    pushed['zeros'] = await pushImage(images, 'acme/zeros-bundle', 'v1', [
      csvLayer,
      ...Array.from({ length: 20 }, (_, index) => ({ bytes: zeroFileLayer(`filler/zeros-${index}`, 4 * MiB, fourMiBZeros), gzipped: true })),
    ]);
    // the item's image: 20 layers of 250 MiB of zeros, each ~250 KB compressed
    const bigZeros = await gzipZeros(250 * MiB + 1024);
    pushed['bigzeros'] = await pushImage(
      images,
      'acme/bigzeros-bundle',
      'v1',
      Array.from({ length: 20 }, (_, index) => ({ bytes: zeroFileLayer(`filler/zeros-${index}`, 250 * MiB, bigZeros), gzipped: true })),
    );
    // 200 layers naming one blob; and 100 layers naming one 2 MiB blob (200 MiB compressed in all)
    const small = gzip(await tarLayer([{ name: 'filler/x', content: 'x' }]));
    pushed['oneblob'] = await pushImage(images, 'acme/oneblob-bundle', 'v1', [csvLayer, ...Array.from({ length: 200 }, () => ({ bytes: small, gzipped: true }))]);
    const incompressible = await tarLayer([{ name: 'filler/random', content: randomBytes(2 * MiB).toString('latin1') }]);
    pushed['sameblob'] = await pushImage(images, 'acme/sameblob-bundle', 'v1', [csvLayer, ...Array.from({ length: 100 }, () => ({ bytes: incompressible, gzipped: false }))]);
    // one 8 MiB manifest file; 2,000 small manifest files
    const huge = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n${'  k: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n'.repeat(8 * MiB / 60)}`;
    pushed['hugefile'] = await pushImage(images, 'acme/hugefile-bundle', 'v1', [csvLayer, { bytes: gzip(await tarLayer([{ name: 'manifests/huge.yaml', content: huge }])), gzipped: true }]);
    const many = Array.from({ length: 2_000 }, (_, index) => ({ name: `manifests/cm-${index}.yaml`, content: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${index}\n` }));
    pushed['manyfiles'] = await pushImage(images, 'acme/manyfiles-bundle', 'v1', [csvLayer, { bytes: gzip(await tarLayer(many)), gzipped: true }]);
    pushed['good'] = await pushMinimalBundle(images, 'acme/good-bundle', 'v1', 'good');

    const blobs = Object.entries(pushed).flatMap(([name, image]) => imageOnlyPackage(name, image.reference));
    environment = await startImageCatalog(directory, 'acme-limits', blobs, {
      controller: { bundleUnpackPollMs: 100 },
      puller: { bundleUnpackErrorRetryMs: 100, bundleUnpackFailedRetryMs: 500, registryRequestTimeoutMs: 20_000, bundleImageLimits: { maxUncompressedBytes: loweredUncompressedBytes } },
    });
    client = environment.client;
  }, 120_000);
  afterAll(async () => {
    await environment?.stop();
    await images?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  const subscribe = async (namespace: string, name: string) => {
    await createOperatorNamespace(client, namespace);
    await client.create(subscription(namespace, name, { source: 'acme-limits', sourceNamespace: 'olm' }));
  };

  /** The good bundle installs in a fresh namespace: the process and the catalog operator are fine. */
  const goodBundleInstalls = async (namespace: string) => {
    await subscribe(namespace, 'good');
    await completedPlan(client, namespace);
    expect(await get(client, Kinds.clusterServiceVersion, namespace, 'good.v1.0.0')).toBeDefined();
  };

  it('fails 20 layers of zeros past the uncompressed bound, naming the image, the layer, the limit and the flag, and still installs a good bundle', async () => {
    const { result: failed, growth } = await rssGrowthDuring(async () => {
      await subscribe('limits-zeros', 'zeros');
      return unpackFailure(client, 'limits-zeros', 'zeros');
    });
    expect(failed.reason).toBe('BundleUnpackFailed');
    const image = pushed['zeros']!;
    // layer 1 holds the CSV; layers 2-5 take 16 MiB, their tar headers take the 5th past it
    expect(failed.message).toContain(
      `bundle image ${image.reference} is over its limit of ${loweredUncompressedBytes} uncompressed bytes: layer ${image.layers[4]!.digest} (5 of 21) of ${image.reference} decompresses past it`,
    );
    expect(failed.message).toContain('raise the bundle puller\'s bundleImageLimits.maxUncompressedBytes (olm run/up --bundle-max-uncompressed-bytes)');
    expect(failed.message).toContain(`(not pulled again: delete the ConfigMap olm/${unpackedConfigMapName(image.reference)} to try again)`);
    expect(growth).toBeLessThan(200 * MiB);
    await goodBundleInstalls('limits-good-a');
  });

  it('with the default bounds, refuses 20 layers of 250 MiB of zeros past 256 MiB uncompressed with bounded memory, then pulls a good bundle', async () => {
    const puller = createBundlePuller({ client: () => client, logger: silentLogger });
    try {
      const request = (name: string) => ({ bundle: { name: `${name}.v1.0.0`, image: pushed[name]!.reference }, catalog: { namespace: 'default-limits', name: 'acme-limits' } });
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default-limits' } });
      const { result: failed, growth } = await rssGrowthDuring(() =>
        eventually(async () => {
          const result = await puller.pull(request('bigzeros'));
          return result.state === 'failed' && result;
        }, { timeoutMs: 60_000 }),
      );
      const image = pushed['bigzeros']!;
      expect(failed.reason).toBe('BundleUnpackFailed');
      expect(failed.message).toContain(
        `bundle image ${image.reference} is over its limit of ${defaultBundleImageLimits.maxUncompressedBytes} uncompressed bytes: layer ${image.layers[1]!.digest} (2 of 20) of ${image.reference} decompresses past it`,
      );
      expect(growth).toBeLessThan(200 * MiB);
      const good = await eventually(async () => {
        const result = await puller.pull(request('good'));
        return result.state !== 'pending' && result;
      });
      expect(good.state).toBe('unpacked');
    } finally {
      await puller.close();
    }
  }, 90_000);

  it('refuses 200 layers naming one blob by their number, and 100 layers naming one 2 MiB blob by their compressed bytes, before reading any', async () => {
    await subscribe('limits-oneblob', 'oneblob');
    const layers = await unpackFailure(client, 'limits-oneblob', 'oneblob');
    expect(layers.message).toContain(
      `bundle image ${pushed['oneblob']!.reference} is over its limit of 128 layers: its manifest lists 201 layers; a bundle image holds only manifests and metadata`,
    );
    expect(layers.message).toContain('bundleImageLimits.maxLayers (olm run/up --bundle-max-layers)');

    await subscribe('limits-sameblob', 'sameblob');
    const bytes = await unpackFailure(client, 'limits-sameblob', 'sameblob');
    expect(bytes.message).toContain(`bundle image ${pushed['sameblob']!.reference} is over its limit of ${128 * MiB} compressed bytes: its manifest lists 101 layers (2 distinct blobs) of `);
    expect(bytes.message).toContain('every layer counts, also one naming a blob another layer names');
    expect(bytes.message).toContain('--bundle-max-compressed-bytes');
  });

  it('refuses a manifest file above the per-file bound from its tar header, and too many manifest files', async () => {
    await subscribe('limits-hugefile', 'hugefile');
    const huge = await unpackFailure(client, 'limits-hugefile', 'hugefile');
    const image = pushed['hugefile']!;
    expect(huge.message).toMatch(
      new RegExp(`over its limit of ${MiB} bytes in one file: file manifests/huge\\.yaml of layer ${image.layers[1]!.digest} \\(2 of 2\\) of .* is \\d{7} bytes`),
    );
    expect(huge.message).toContain('--bundle-max-file-bytes');

    await subscribe('limits-manyfiles', 'manyfiles');
    const many = await unpackFailure(client, 'limits-manyfiles', 'manyfiles');
    expect(many.message).toContain(`is over its limit of 1000 entries under manifests/ and metadata/: file manifests/cm-`);
    expect(many.message).toContain('is entry number 1001');
    expect(many.message).toContain('--bundle-max-files');
    await goodBundleInstalls('limits-good-b');
  });

  it('remembers a bound failure in the ConfigMap: a restarted operator does not pull the image again until the ConfigMap is deleted', async () => {
    const image = pushed['zeros']!;
    const name = unpackedConfigMapName(image.reference);
    const remembered = await get(client, Kinds.configMap, 'olm', name);
    expect(remembered?.metadata?.annotations?.[bundleUnpackFailureAnnotation]).toContain('is over its limit of');

    // a frozen registry: any pull would hang as BundleUnpacking
    images.pause();
    try {
      await environment.restartOperator();
      await subscribe('limits-zeros-again', 'zeros');
      const failed = await unpackFailure(client, 'limits-zeros-again', 'zeros', 'not pulled again');
      expect(failed.message).toContain(`${loweredUncompressedBytes} uncompressed bytes`);
      expect(condition(await get(client, Kinds.subscription, 'limits-zeros-again', 'zeros'), 'BundleUnpacking')).toBeUndefined();
    } finally {
      images.resume();
    }

    // the explicit way to try again: delete the ConfigMap; the image is pulled (and refused) once more
    await client.delete({ ...Kinds.configMap, namespace: 'olm', name });
    const again = await eventually(async () => {
      const found = await get(client, Kinds.configMap, 'olm', name);
      return found && found.metadata?.uid !== remembered?.metadata?.uid && found;
    });
    expect(again.metadata?.annotations?.[bundleUnpackFailureAnnotation]).toContain(`layer ${image.layers[4]!.digest} (5 of 21)`);
  });
});
