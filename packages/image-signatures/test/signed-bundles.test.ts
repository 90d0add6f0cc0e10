import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signaturePolicyAnnotation } from '@olm/core';
import { createOciArtifactReader, createOciRegistryPusher, unpackedConfigMapName } from '@olm/bundle-puller';
import { dockerRegistryBinary, imageOnlyPackage, pushBlob, pushImage, pushMinimalBundle, startDockerRegistry, tarLayer, type DockerRegistry, type PushedImage } from '@olm/bundle-puller/testing';
import { completedPlan, createOperatorNamespace, get, Kinds, list, startImageCatalog, subscription, unpackFailure, type ImageCatalogEnvironment } from '@olm/bundle-puller/testing/catalog-operator';
import { grpcCatalogSource } from '@olm/testing';
import { CosignAnnotations, createImageSignatureVerifier, keySigner, signatureTag, signImage } from '../src/index.js';

const binary = dockerRegistryBinary();
if (!binary) console.warn('signed bundle tests skipped: docker-registry not found (apt-get install docker-registry, or set DOCKER_REGISTRY to the binary)');

const keyPair = () => {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privatePem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string };
};

/**
 * The catalog operator on the local API server, with the bundle puller and this package's verifier: one
 * image-only catalog served twice, as CatalogSource `olm/plain` (no policy) and `olm/signed-only` (annotated
 * with the policy `acme-keys`, a ConfigMap in `olm` holding the publisher's key).
 */
describe.skipIf(!binary)('bundle images of a catalog with a signature policy', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-signed-bundles-'));
  const reader = createOciArtifactReader();
  const pusher = createOciRegistryPusher();
  const publisher = keyPair();
  const stranger = keyPair();
  let registry: DockerRegistry;
  let environment: ImageCatalogEnvironment;
  const images: Record<string, PushedImage> = {};

  beforeAll(async () => {
    registry = await startDockerRegistry(binary!, directory);
    for (const name of ['signed', 'unsigned', 'otherkey', 'tampered']) images[name] = await pushMinimalBundle(registry, `acme/${name}-bundle`, 'v1', name);
    // claims in its own metadata/annotations.yaml to have been verified under the policy
    const forgedCsv = `apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: forged.v1.0.0\nspec:\n  displayName: forged\n  version: 1.0.0\n  install:\n    strategy: deployment\n    spec:\n      deployments: []\n`;
    const forgedAnnotations = `annotations:\n  ${signaturePolicyAnnotation}: acme-keys\n  olm.operatorframework.io/signed-by: key acme.pub\n`;
    images['forged'] = await pushImage(registry, 'acme/forged-bundle', 'v1', [
      { bytes: await tarLayer([{ name: 'manifests/forged.clusterserviceversion.yaml', content: forgedCsv }, { name: 'metadata/annotations.yaml', content: forgedAnnotations }]), gzipped: false },
    ]);
    await signImage({ image: images['signed']!.reference, sign: keySigner(publisher.privatePem), reader, pusher });
    await signImage({ image: images['otherkey']!.reference, sign: keySigner(stranger.privatePem), reader, pusher });
    // tampered: a real signature of the publisher, its payload then edited to name tampered's digest
    const donor = await pushMinimalBundle(registry, 'acme/tampered-bundle', 'donor', 'donor');
    const signed = await signImage({ image: donor.reference, sign: keySigner(publisher.privatePem), reader, pusher });
    const layer = (await reader.readManifest(signed.signatures, 1 << 20))!.manifest.layers![0]!;
    const payload = Buffer.from((await reader.readBlob(donor.reference, layer.digest, 1 << 16)).toString().replace(donor.manifestDigest, images['tampered']!.manifestDigest));
    await pushSignature(registry, 'acme/tampered-bundle', images['tampered']!.manifestDigest, payload, layer.annotations![CosignAnnotations.signature]!);

    const blobs = Object.entries(images).flatMap(([name, image]) => imageOnlyPackage(name, image.reference));
    let verifierClient: ImageCatalogEnvironment['client'] | undefined;
    const verifier = createImageSignatureVerifier({ client: () => verifierClient! });
    environment = await startImageCatalog(directory, 'plain', blobs, {
      controller: { bundleUnpackPollMs: 100 },
      puller: { bundleUnpackErrorRetryMs: 100, bundleUnpackFailedRetryMs: 500 },
      verifier,
    });
    verifierClient = environment.client;
    const { client } = environment;
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'olm', name: 'acme-keys' }, data: { 'acme.pub': publisher.publicPem } });
    const signedOnly = grpcCatalogSource('olm', 'signed-only', environment.catalogServer.address);
    await client.create({ ...signedOnly, metadata: { ...signedOnly.metadata, annotations: { [signaturePolicyAnnotation]: 'acme-keys' } } });
  });
  afterAll(async () => {
    await environment?.stop();
    await registry?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  const install = async (namespace: string, name: string, catalog: string) => {
    await createOperatorNamespace(environment.client, namespace);
    await environment.client.create(subscription(namespace, name, { source: catalog, sourceNamespace: 'olm', channel: 'stable' }));
  };

  it('installs a bundle signed with the policy key, and records who signed it', async () => {
    await install('signed', 'signed', 'signed-only');
    await completedPlan(environment.client, 'signed');
    expect(await get(environment.client, Kinds.clusterServiceVersion, 'signed', 'signed.v1.0.0')).toBeDefined();
    const unpacked = await get(environment.client, Kinds.configMap, 'olm', unpackedConfigMapName(images['signed']!.reference));
    expect(unpacked?.metadata?.annotations).toMatchObject({ [signaturePolicyAnnotation]: 'acme-keys', 'olm.operatorframework.io/signed-by': 'key acme.pub' });
  });

  it('refuses an unsigned bundle, one signed by another key and one whose payload was tampered with, installing nothing', async () => {
    const { client } = environment;
    await install('unsigned', 'unsigned', 'signed-only');
    await install('otherkey', 'otherkey', 'signed-only');
    await install('tampered', 'tampered', 'signed-only');
    const unsigned = images['unsigned']!;
    const refusal = (name: string) => `unpacking bundle image ${images[name]!.reference} of ${name}.v1.0.0 (catalogsource olm/signed-only) failed: image ${images[name]!.reference} (digest ${images[name]!.manifestDigest})`;
    const failed = await unpackFailure(client, 'unsigned', 'unsigned', refusal('unsigned'));
    expect(failed).toMatchObject({ reason: 'BundleUnpackFailed' });
    expect(failed.message).toContain(
      `is not signed: no signature manifest ${registry.host}/acme/unsigned-bundle:${signatureTag(unsigned.manifestDigest)}, and signature policy configmap olm/acme-keys requires a signature; sign the image (olm image sign ${unsigned.reference} --key KEY.pem, or cosign sign)`,
    );
    expect((await unpackFailure(client, 'otherkey', 'otherkey', refusal('otherkey'))).message).toContain('has no signature that signature policy configmap olm/acme-keys accepts: signature 1 (sha256:');
    expect((await unpackFailure(client, 'otherkey', 'otherkey')).message).toContain('it is not signed by any key of the policy (acme.pub)');
    expect((await unpackFailure(client, 'tampered', 'tampered', refusal('tampered'))).message).toContain('it is not signed by any key of the policy (acme.pub)');
    for (const namespace of ['unsigned', 'otherkey', 'tampered']) {
      expect(await list(client, Kinds.installPlan, namespace)).toEqual([]);
      expect(await list(client, Kinds.clusterServiceVersion, namespace)).toEqual([]);
    }
  });

  it('leaves catalogs without a policy as they were, and never takes their unverified unpack for a verified one', async () => {
    const { client } = environment;
    await install('plain-forged', 'forged', 'plain');
    await completedPlan(client, 'plain-forged');
    const stored = await get(client, Kinds.configMap, 'olm', unpackedConfigMapName(images['forged']!.reference));
    // the image's own annotations do not pass for a verification
    expect(stored?.metadata?.annotations?.[signaturePolicyAnnotation]).toBeUndefined();
    expect(stored?.metadata?.annotations?.['olm.operatorframework.io/signed-by']).toBeUndefined();
    await install('policy-forged', 'forged', 'signed-only');
    expect((await unpackFailure(client, 'policy-forged', 'forged')).message).toContain(`image ${images['forged']!.reference} (digest ${images['forged']!.manifestDigest}) is not signed`);
    expect(await list(client, Kinds.installPlan, 'policy-forged')).toEqual([]);
  });

  it('fails the unpack, naming the ConfigMap, when the policy named does not exist', async () => {
    const { client } = environment;
    const missing = grpcCatalogSource('olm', 'missing-policy', environment.catalogServer.address);
    await client.create({ ...missing, metadata: { ...missing.metadata, annotations: { [signaturePolicyAnnotation]: 'nope' } } });
    await install('missing-policy', 'signed', 'missing-policy');
    const failed = await unpackFailure(client, 'missing-policy', 'signed', 'signature policy configmap olm/nope not found');
    expect(failed).toMatchObject({ reason: 'ErrorPreventedUnpacking' });
    expect(failed.message).toContain("create it (public keys as <name>.pub, or trusted_root.json with identities.json), or fix the catalog's olm.operatorframework.io/signature-policy annotation");
  });
});

/** One signature layer (payload and signature as given) under the digest's signature tag. */
async function pushSignature(registry: DockerRegistry, repository: string, digest: string, payload: Buffer, signature: string): Promise<void> {
  const payloadDigest = await pushBlob(registry.url, repository, payload);
  const config = Buffer.from('{}');
  const configDigest = await pushBlob(registry.url, repository, config);
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', size: config.length, digest: configDigest },
    layers: [{ mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json', size: payload.length, digest: payloadDigest, annotations: { [CosignAnnotations.signature]: signature } }],
  });
  const put = await fetch(`${registry.url}/v2/${repository}/manifests/${signatureTag(digest)}`, { method: 'PUT', headers: { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' }, body: manifest });
  if (put.status !== 201) throw new Error(`signature manifest not pushed: HTTP ${put.status}`);
}
