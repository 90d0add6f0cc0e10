import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signaturePolicyAnnotation } from '@olm/core';
import { createOciArtifactReader, createOciRegistryPusher } from '@olm/bundle-puller';
import { dockerRegistryBinary, imageOnlyPackage, pushMinimalBundle, startDockerRegistry, tarLayer, pushImage, type DockerRegistry, type PushedImage } from '@olm/bundle-puller/testing';
import { completedPlan, condition, createOperatorNamespace, eventually, get, Kinds, list, startImageCatalog, subscription, type ImageCatalogEnvironment } from '@olm/bundle-puller/testing/catalog-operator';
import type { PodImageServer } from '@olm/local-apiserver';
import { createCatalogSourceTypes, loadCatalog, startRegistryServer } from '@olm/registry';
import { createImageSignatureVerifier, keySigner, signImage } from '../src/index.js';

const binary = dockerRegistryBinary();
if (!binary) console.warn('signed catalog image tests skipped: docker-registry not found (apt-get install docker-registry, or set DOCKER_REGISTRY to the binary)');

type SourceStatus = { reason?: string; message?: string; connectionState?: { lastObservedState?: string } };
const statusOf = (object: { status?: unknown } | undefined) => (object?.status ?? {}) as SourceStatus;

/**
 * Image CatalogSources (a registry Pod runs the catalog image; the local API server serves the Pods of the
 * images it is given) with a signature policy: the catalog image is verified before its Pod exists, and the
 * Pod runs the digest verified.
 */
describe.skipIf(!binary)('catalog images of CatalogSources with a signature policy', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-signed-catalog-images-'));
  const reader = createOciArtifactReader();
  const pusher = createOciRegistryPusher();
  const publisher = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let registry: DockerRegistry;
  let environment: ImageCatalogEnvironment;
  let signedCatalog: PushedImage;
  let unsignedCatalog: PushedImage;
  const served: string[] = [];

  beforeAll(async () => {
    registry = await startDockerRegistry(binary!, directory);
    const bundle = await pushMinimalBundle(registry, 'acme/thing-bundle', 'v1', 'thing');
    await signImage({ image: bundle.reference, sign: keySigner(publisher.privateKey), reader, pusher });
    // the catalog images' content does not matter here: the API server runs their Pods' registry from the catalog below
    const layer = await tarLayer([{ name: 'configs/README', content: 'served by the test' }]);
    signedCatalog = await pushImage(registry, 'acme/catalog', 'v1', [{ bytes: layer, gzipped: false }], {}, {});
    unsignedCatalog = await pushImage(registry, 'acme/unsigned-catalog', 'v1', [{ bytes: layer, gzipped: false }], {}, {});
    await signImage({ image: signedCatalog.reference, sign: keySigner(publisher.privateKey), reader, pusher });
    const catalogPod: PodImageServer = async ({ podIP, name }) => {
      const server = await startRegistryServer({ catalog: await loadCatalog(join(directory, 'catalog')), host: podIP, port: 50051 });
      served.push(name);
      return { stop: () => server.stop({ graceMs: 0 }) };
    };
    const podImageServers: Record<string, PodImageServer> = {};
    for (const image of [signedCatalog, unsignedCatalog]) {
      podImageServers[image.reference] = catalogPod;
      podImageServers[`${image.reference.replace(/:v1$/, '')}@${image.manifestDigest}`] = catalogPod;
    }
    let verifierClient: ImageCatalogEnvironment['client'] | undefined;
    environment = await startImageCatalog(directory, 'plain', imageOnlyPackage('thing', bundle.reference), {
      controller: {
        bundleUnpackPollMs: 100,
        // image catalogs' registry Pods dialed at their Pod IPs (the local API server's Pods), through the grpc type
        catalogSourceTypes: createCatalogSourceTypes({ loadDirectory: (path) => loadCatalog(path), grpc: { registryPod: { serviceRouting: 'pod-ip' } } }),
      },
      puller: { bundleUnpackErrorRetryMs: 100, bundleUnpackFailedRetryMs: 500 },
      verifier: createImageSignatureVerifier({ client: () => verifierClient! }),
      cluster: { podImageServers },
    });
    verifierClient = environment.client;
    await environment.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'olm', name: 'acme-keys' }, data: { 'acme.pub': publisher.publicKey.export({ type: 'spki', format: 'pem' }) as string } });
  });
  afterAll(async () => {
    await environment?.stop();
    await registry?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  const imageCatalog = (name: string, image: string) => ({
    ...Kinds.catalogSource,
    metadata: { name, namespace: 'olm', annotations: { [signaturePolicyAnnotation]: 'acme-keys' } },
    spec: { sourceType: 'grpc', image },
  });
  const podsOf = async (catalog: string) => (await list(environment.client, { apiVersion: 'v1', kind: 'Pod' }, 'olm')).filter((pod) => pod.metadata?.labels?.['olm.catalogSource'] === catalog);

  it('runs a signed catalog image by the digest verified, and installs from it', async () => {
    const { client } = environment;
    await client.create(imageCatalog('signed-image', signedCatalog.reference));
    await eventually(async () => statusOf(await get(client, Kinds.catalogSource, 'olm', 'signed-image')).connectionState?.lastObservedState === 'READY', { timeoutMs: 20_000, message: 'signed-image READY' });
    const [pod] = await podsOf('signed-image');
    const containers = (pod?.spec as { containers: Array<{ image: string }> }).containers;
    expect(containers[0]?.image).toBe(`${registry.host}/acme/catalog@${signedCatalog.manifestDigest}`);
    await createOperatorNamespace(client, 'from-signed-image');
    await client.create(subscription('from-signed-image', 'thing', { source: 'signed-image', sourceNamespace: 'olm', channel: 'stable' }));
    await completedPlan(client, 'from-signed-image');
  });

  it('refuses an unsigned catalog image: RegistryServerError naming the image and the policy, and no registry Pod', async () => {
    const { client } = environment;
    await client.create(imageCatalog('unsigned-image', unsignedCatalog.reference));
    const source = await eventually(async () => {
      const found = await get(client, Kinds.catalogSource, 'olm', 'unsigned-image');
      return statusOf(found).reason === 'RegistryServerError' && found;
    }, { timeoutMs: 20_000, message: 'unsigned-image refused' });
    expect(statusOf(source).message).toBe(
      `catalog image ${unsignedCatalog.reference} refused by signature policy acme-keys (annotation ${signaturePolicyAnnotation}): image ${unsignedCatalog.reference} (digest ${unsignedCatalog.manifestDigest}) is not signed: no signature manifest ${registry.host}/acme/unsigned-catalog:${unsignedCatalog.manifestDigest.replace(':', '-')}.sig, and signature policy configmap olm/acme-keys requires a signature; sign the image (olm image sign ${unsignedCatalog.reference} --key KEY.pem, or cosign sign); no registry Pod serves it`,
    );
    expect(statusOf(source).connectionState?.lastObservedState).toBe('TRANSIENT_FAILURE');
    expect(await podsOf('unsigned-image')).toEqual([]);
    await createOperatorNamespace(client, 'from-unsigned-image');
    await client.create(subscription('from-unsigned-image', 'thing', { source: 'unsigned-image', sourceNamespace: 'olm', channel: 'stable' }));
    const unhealthy = await eventually(async () => {
      const sub = await get(client, Kinds.subscription, 'from-unsigned-image', 'thing');
      return condition(sub, 'CatalogSourcesUnhealthy')?.status === 'True' && condition(sub, 'CatalogSourcesUnhealthy');
    });
    expect(unhealthy?.message).toContain('unsigned-image');
    expect(await list(client, Kinds.installPlan, 'from-unsigned-image')).toEqual([]);
  });
});
