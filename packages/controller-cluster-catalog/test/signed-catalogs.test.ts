import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kinds, type ClusterCatalog } from '@olm/api';
import { createOciArtifactReader, createOciRegistryPusher } from '@olm/bundle-puller/registry';
import { signaturePolicyAnnotation } from '@olm/core';
import { createImageSignatureVerifier, keySigner, signImage } from '@olm/image-signatures';
import { eventually, startTestCluster, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterCatalog, dockerRegistryBinary, exampleCatalogDirectory, httpsGet, pushCatalogImage, startClusterCatalogController, startDockerRegistry, type DockerRegistry, type StoredClusterCatalog } from './helpers.js';

const binary = dockerRegistryBinary();
if (!binary) console.warn('docker-registry not found (scripts/setup.sh installs it; $DOCKER_REGISTRY overrides): the signed ClusterCatalog tests are skipped');

const conditionOf = (catalog: Pick<ClusterCatalog, 'status'> | undefined, type: string) => {
  const condition = catalog?.status?.conditions?.find((item) => item.type === type);
  return condition ? { status: condition.status, reason: condition.reason, message: condition.message } : undefined;
};

describe.skipIf(!binary)('ClusterCatalogs annotated with a signature policy', () => {
  let cluster: TestCluster;
  let registry: DockerRegistry;
  let controller: Awaited<ReturnType<typeof startClusterCatalogController>>;
  let scratch: string;
  const reader = createOciArtifactReader();
  const pusher = createOciRegistryPusher();
  const publisher = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const get = (name: string) => cluster.client.get<StoredClusterCatalog>({ ...Kinds.clusterCatalog, name }).catch(() => undefined);
  const until = (name: string, check: (catalog: StoredClusterCatalog | undefined) => boolean) =>
    eventually(
      async () => {
        const catalog = await get(name);
        if (!check(catalog)) throw new Error(`${name}: ${JSON.stringify(catalog?.status)}`);
        return catalog!;
      },
      { timeoutMs: 30_000 },
    );

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'signed-cluster-catalogs-'));
    cluster = await startTestCluster({ namespaces: ['olm'] });
    registry = await startDockerRegistry(binary!, join(scratch, 'registry'));
    const verifier = createImageSignatureVerifier({ client: () => cluster.client });
    controller = await startClusterCatalogController(cluster, { cacheDirectory: join(scratch, 'cache'), verifier });
    await cluster.client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'olm', name: 'acme-keys' },
      data: { 'acme.pub': publisher.publicKey.export({ type: 'spki', format: 'pem' }) as string },
    });
  });
  afterAll(async () => {
    await controller?.stop();
    await registry?.stop();
    await cluster?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('serves a catalog image signed with the policy key', async () => {
    const image = await pushCatalogImage(registry, 'acme/signed-catalog', 'v1', exampleCatalogDirectory);
    await signImage({ image: image.reference, sign: keySigner(publisher.privateKey), reader, pusher });
    await cluster.client.create(clusterCatalog('signed', { source: { type: 'Image', image: { ref: image.reference } } }, { [signaturePolicyAnnotation]: 'acme-keys' }));
    const catalog = await until('signed', (found) => conditionOf(found, 'Serving')?.status === 'True');
    expect(conditionOf(catalog, 'Progressing')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect((await httpsGet(`${catalog.status!.urls!.base}/api/v1/all`, controller.controller.server!.certificate!)).status).toBe(200);
  });

  it('refuses an unsigned catalog image: Progressing Retrying naming the image and the policy, nothing served', async () => {
    const image = await pushCatalogImage(registry, 'acme/unsigned-catalog', 'v1', exampleCatalogDirectory);
    await cluster.client.create(clusterCatalog('unsigned', { source: { type: 'Image', image: { ref: image.reference } } }, { [signaturePolicyAnnotation]: 'acme-keys' }));
    const catalog = await until('unsigned', (found) => conditionOf(found, 'Progressing')?.reason === 'Retrying');
    expect(conditionOf(catalog, 'Progressing')).toEqual({
      status: 'True',
      reason: 'Retrying',
      message: `source catalog content: image ${image.reference} (digest ${image.manifestDigest}) is not signed: no signature manifest ${registry.host}/acme/unsigned-catalog:${image.manifestDigest.replace(':', '-')}.sig, and signature policy configmap olm/acme-keys requires a signature; sign the image (olm image sign ${image.reference} --key KEY.pem, or cosign sign)`,
    });
    expect(conditionOf(catalog, 'Serving')?.status).not.toBe('True');
    expect(catalog.status?.urls).toBeUndefined();
  });

  it('stops serving a catalog once a policy its image does not satisfy is added, and serves it again when it is signed', async () => {
    const image = await pushCatalogImage(registry, 'acme/later-catalog', 'v1', exampleCatalogDirectory);
    await cluster.client.create(clusterCatalog('later', { source: { type: 'Image', image: { ref: image.reference } } }));
    const served = await until('later', (found) => conditionOf(found, 'Serving')?.status === 'True');
    const base = served.status!.urls!.base;
    await cluster.client.patch({ ...Kinds.clusterCatalog, name: 'later' }, { metadata: { annotations: { [signaturePolicyAnnotation]: 'acme-keys' } } });
    const refused = await until('later', (found) => conditionOf(found, 'Serving')?.status === 'False');
    expect(conditionOf(refused, 'Progressing')?.message).toContain(`image ${image.reference} (digest ${image.manifestDigest}) is not signed`);
    expect((await httpsGet(`${base}/api/v1/all`, controller.controller.server!.certificate!)).status).toBe(404);
    await signImage({ image: image.reference, sign: keySigner(publisher.privateKey), reader, pusher });
    await until('later', (found) => conditionOf(found, 'Serving')?.status === 'True' && conditionOf(found, 'Progressing')?.reason === 'Succeeded');
  });
});
