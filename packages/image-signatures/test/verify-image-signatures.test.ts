import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOciArtifactReader, createOciRegistryPusher, sha256Digest } from '@olm/bundle-puller/registry';
import { blobDataPath, dockerRegistryBinary, pushBlob, pushMinimalBundle, startDockerRegistry, type DockerRegistry, type PushedImage } from '@olm/bundle-puller/testing';
import { CosignAnnotations, ImageSignatureErrorCodes, keySigner, parseSignaturePolicy, signatureTag, signImage, verifyImageSignatures, type SignaturePolicy } from '../src/index.js';
import { startLocalSigstore, type LocalSigstore } from './local-sigstore.js';

const binary = dockerRegistryBinary();
if (!binary) console.warn('image signature tests skipped: docker-registry not found (apt-get install docker-registry, or set DOCKER_REGISTRY to the binary)');

const pemPair = (type: 'ec' | 'ed25519' | 'rsa') => {
  const pair =
    type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
  return { privatePem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string };
};

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'verified', (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`);

describe.skipIf(!binary)('cosign signatures in a real registry', () => {
  const directory = mkdtempSync(join(tmpdir(), 'olm-image-signatures-'));
  const reader = createOciArtifactReader();
  const pusher = createOciRegistryPusher();
  const keys = { ec: pemPair('ec'), ed25519: pemPair('ed25519'), rsa: pemPair('rsa'), other: pemPair('ec') };
  let registry: DockerRegistry;
  let sigstore: LocalSigstore;
  let image: PushedImage;
  const policyOf = (data: Record<string, string>): SignaturePolicy => parseSignaturePolicy(data, 'configmap olm/test');
  const verify = (target: PushedImage, policy: SignaturePolicy, limits = {}) => verifyImageSignatures({ reader, image: target.reference, digest: target.manifestDigest, policy, limits });

  beforeAll(async () => {
    registry = await startDockerRegistry(binary!, directory);
    sigstore = await startLocalSigstore();
    image = await pushMinimalBundle(registry, 'acme/signed', 'v1', 'signed');
  });
  afterAll(async () => {
    await registry?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('verifies signatures made with ECDSA P-256, Ed25519 and RSA keys, each with its own public key only', async () => {
    for (const type of ['ec', 'ed25519', 'rsa'] as const) {
      const target = await pushMinimalBundle(registry, `acme/key-${type}`, 'v1', `key-${type}`);
      const signed = await signImage({ image: target.reference, sign: keySigner(keys[type].privatePem), reader, pusher });
      expect(signed).toEqual({ digest: target.manifestDigest, signatures: `${registry.host}/acme/key-${type}:${signatureTag(target.manifestDigest)}` });
      await expect(verify(target, policyOf({ [`${type}.pub`]: keys[type].publicPem }))).resolves.toEqual({ signer: `key ${type}.pub` });
      expect(await codeOf(verify(target, policyOf({ 'other.pub': keys.other.publicPem })))).toBe(
        `${ImageSignatureErrorCodes.invalid}: image ${target.reference} (digest ${target.manifestDigest}) has no signature that signature policy configmap olm/test accepts: signature 1 (${sha256Digest(Buffer.from(JSON.stringify({ critical: { identity: { 'docker-reference': `${registry.host}/acme/key-${type}` }, image: { 'docker-manifest-digest': target.manifestDigest }, type: 'cosign container image signature' }, optional: null })))}): it is not signed by any key of the policy (other.pub)`,
      );
    }
  });

  it('refuses an unsigned image, naming the signature tag it looked for and how to sign', async () => {
    const unsigned = await pushMinimalBundle(registry, 'acme/unsigned', 'v1', 'unsigned');
    expect(await codeOf(verify(unsigned, policyOf({ 'ec.pub': keys.ec.publicPem })))).toBe(
      `${ImageSignatureErrorCodes.unsigned}: image ${unsigned.reference} (digest ${unsigned.manifestDigest}) is not signed: no signature manifest ${registry.host}/acme/unsigned:${signatureTag(unsigned.manifestDigest)}, and signature policy configmap olm/test requires a signature; sign the image (olm image sign ${unsigned.reference} --key KEY.pem, or cosign sign)`,
    );
  });

  it('keeps earlier signatures when signing again, and accepts the image with any key of the policy', async () => {
    const target = await pushMinimalBundle(registry, 'acme/two-keys', 'v1', 'two-keys');
    await signImage({ image: target.reference, sign: keySigner(keys.other.privatePem), reader, pusher });
    await signImage({ image: `${registry.host}/acme/two-keys@${target.manifestDigest}`, sign: keySigner(keys.ec.privatePem), reader, pusher });
    const manifest = await reader.readManifest(`${registry.host}/acme/two-keys:${signatureTag(target.manifestDigest)}`, 1 << 20);
    expect(manifest?.manifest.layers).toHaveLength(2);
    await expect(verify(target, policyOf({ 'ec.pub': keys.ec.publicPem }))).resolves.toEqual({ signer: 'key ec.pub' });
    await expect(verify(target, policyOf({ 'rsa.pub': keys.rsa.publicPem, 'other.pub': keys.other.publicPem }))).resolves.toEqual({ signer: 'key other.pub' });
  });

  it('refuses a tampered payload (another digest, same signature) and a signature copied from another image', async () => {
    const target = await pushMinimalBundle(registry, 'acme/tampered', 'v1', 'tampered');
    const other = await pushMinimalBundle(registry, 'acme/tampered', 'v2', 'tampered-two');
    const signed = await signImage({ image: other.reference, sign: keySigner(keys.ec.privatePem), reader, pusher });
    const sigManifest = (await reader.readManifest(signed.signatures, 1 << 20))!;
    const layer = sigManifest.manifest.layers![0]!;
    // the signature of v2's payload, put under v1's signature tag: it names v2's digest
    await pushSignatureManifest(registry, 'acme/tampered', target.manifestDigest, [{ payload: await reader.readBlob(other.reference, layer.digest, 1 << 16), signature: layer.annotations![CosignAnnotations.signature]! }]);
    expect(await codeOf(verify(target, policyOf({ 'ec.pub': keys.ec.publicPem })))).toContain(`signature 1 (${layer.digest}): its payload names digest ${other.manifestDigest}, not ${target.manifestDigest}`);
    // the payload edited to name v1, the signature kept: it no longer verifies
    const edited = Buffer.from((await reader.readBlob(other.reference, layer.digest, 1 << 16)).toString().replace(other.manifestDigest, target.manifestDigest));
    await pushSignatureManifest(registry, 'acme/tampered', target.manifestDigest, [{ payload: edited, signature: layer.annotations![CosignAnnotations.signature]! }]);
    expect(await codeOf(verify(target, policyOf({ 'ec.pub': keys.ec.publicPem })))).toContain(`: it is not signed by any key of the policy (ec.pub)`);
  });

  it('tries at most maxSignatures signatures and reads a bounded manifest and payloads', async () => {
    const target = await pushMinimalBundle(registry, 'acme/many', 'v1', 'many');
    const bogus = Array.from({ length: 20 }, (_, index) => ({ payload: Buffer.from(`{"n":${index}}`), signature: 'AAAA' }));
    await pushSignatureManifest(registry, 'acme/many', target.manifestDigest, bogus);
    await signImage({ image: target.reference, sign: keySigner(keys.ec.privatePem), reader, pusher });
    const policy = policyOf({ 'ec.pub': keys.ec.publicPem });
    const refused = await codeOf(verify(target, policy, { maxSignatures: 4 }));
    expect(refused).toMatch(new RegExp(`^${ImageSignatureErrorCodes.limitExceeded}: `));
    expect(refused).toContain('; only the first 4 of its 21 signatures were tried (maxSignatures; raise the image signature verifier\'s signatureLimits.maxSignatures (olm run/up --signature-max-signatures))');
    await expect(verify(target, policy, { maxSignatures: 21 })).resolves.toEqual({ signer: 'key ec.pub' });
    expect(await codeOf(verify(target, policy, { maxManifestBytes: 1000 }))).toMatch(new RegExp(`^${ImageSignatureErrorCodes.limitExceeded}: the signature manifest .* is larger than maxManifestBytes \\(1000 bytes\\)`));
    const one = await pushMinimalBundle(registry, 'acme/one', 'v1', 'one');
    await signImage({ image: one.reference, sign: keySigner(keys.ec.privatePem), reader, pusher });
    const small = await codeOf(verify(one, policy, { maxPayloadBytes: 10 }));
    expect(small).toContain('past maxPayloadBytes (10; raise the image signature verifier\'s signatureLimits.maxPayloadBytes (olm run/up --signature-max-payload-bytes))');
  });

  it('verifies a keyless signature of a trusted root offline: identity, issuer, log entry and certificate chain', async () => {
    const target = await pushMinimalBundle(registry, 'acme/keyless', 'v1', 'keyless');
    const identity = { issuer: 'https://issuer.olm-test.invalid', subject: 'release@acme.example' };
    await signImage({ image: target.reference, sign: await sigstore.signer(identity), reader, pusher });
    const policy = (identities: unknown, root = sigstore.trustedRoot) => policyOf({ 'trusted_root.json': root, 'identities.json': JSON.stringify(identities) });
    await expect(verify(target, policy([identity]))).resolves.toEqual({ signer: 'release@acme.example (issuer https://issuer.olm-test.invalid)' });
    expect(await codeOf(verify(target, policy([{ ...identity, subject: 'someone@acme.example' }])))).toContain(
      `keyless: its certificate's identity "release@acme.example" (issuer "https://issuer.olm-test.invalid") is not one the policy allows (someone@acme.example from https://issuer.olm-test.invalid)`,
    );
    expect(await codeOf(verify(target, policy([{ ...identity, issuer: 'https://other.invalid' }])))).toContain('is not one the policy allows');
    const otherRoot = await startLocalSigstore();
    expect(await codeOf(verify(target, policy([identity], otherRoot.trustedRoot)))).toMatch(/keyless: .*(inclusion promise could not be verified|certificate)/i);
    // a key-based policy does not accept a keyless signature
    expect(await codeOf(verify(target, policyOf({ 'ec.pub': keys.ec.publicPem })))).toContain('it is keyless (a certificate), and the policy has no trusted root');
  });

  it('refuses a keyless signature whose log entry was tampered with, and accepts one logged while its certificate was valid though it has expired since', async () => {
    const identity = { issuer: 'https://issuer.olm-test.invalid', subject: 'release@acme.example' };
    const policy = policyOf({ 'trusted_root.json': sigstore.trustedRoot, 'identities.json': JSON.stringify([identity]) });
    const target = await pushMinimalBundle(registry, 'acme/keyless-tampered', 'v1', 'keyless-tampered');
    const sign = await sigstore.signer(identity);
    await signImage({
      image: target.reference,
      sign: (payload) => {
        const signed = sign(payload);
        const rekor = JSON.parse(signed.annotations![CosignAnnotations.bundle]!) as { Payload: { integratedTime: number } };
        rekor.Payload.integratedTime += 1;
        return { ...signed, annotations: { ...signed.annotations, [CosignAnnotations.bundle]: JSON.stringify(rekor) } };
      },
      reader,
      pusher,
    });
    expect(await codeOf(verify(target, policy))).toContain('keyless: inclusion promise could not be verified');
    const late = await pushMinimalBundle(registry, 'acme/keyless-late', 'v1', 'keyless-late');
    const early = await sigstore.signer(identity, { integratedTime: new Date(Date.now() - 3600_000) });
    await signImage({ image: late.reference, sign: early, reader, pusher });
    // logged an hour ago by a certificate valid then: still fine (the log's time counts, not now)
    await expect(verify(late, policy)).resolves.toMatchObject({ signer: expect.stringContaining('release@acme.example') });
  });

  it('tries the other signatures when the payload of one is gone from the registry', async () => {
    const target = await pushMinimalBundle(registry, 'acme/payload-gone', 'v1', 'payload-gone');
    const payload = Buffer.from('{"critical":{}}');
    await pushSignatureManifest(registry, 'acme/payload-gone', target.manifestDigest, [{ payload, signature: 'AAAA' }]);
    rmSync(blobDataPath(registry.storage, sha256Digest(payload)));
    const policy = policyOf({ 'ec.pub': keys.ec.publicPem });
    expect(await codeOf(verify(target, policy))).toMatch(new RegExp(`^${ImageSignatureErrorCodes.invalid}: .*signature 1 \\(${sha256Digest(payload)}\\): its payload cannot be read: `));
    await signImage({ image: target.reference, sign: keySigner(keys.ec.privatePem), reader, pusher });
    await expect(verify(target, policy)).resolves.toEqual({ signer: 'key ec.pub' });
  });

  it('says what is wrong with a policy', () => {
    const messageOf = (data: Record<string, string>) => {
      try {
        parseSignaturePolicy(data, 'configmap olm/bad');
        return 'parsed';
      } catch (error) {
        return `${(error as { code: string }).code}: ${(error as Error).message}`;
      }
    };
    expect(messageOf({})).toBe(
      `${ImageSignatureErrorCodes.policy}: signature policy configmap olm/bad: it has no public key (a key named <name>.pub) and no trusted_root.json with identities.json; nothing could be verified`,
    );
    expect(messageOf({ 'a.pub': 'not a key' })).toMatch(/^OLM_IMAGE_SIGNATURE_POLICY: signature policy configmap olm\/bad: key a.pub is not a PEM public key \(.*\); give the cosign.pub/);
    expect(messageOf({ 'trusted_root.json': sigstore.trustedRoot })).toContain('keyless signatures need both trusted_root.json and identities.json; it has only trusted_root.json');
    expect(messageOf({ 'trusted_root.json': '{}', 'identities.json': '[]' })).toContain('trusted_root.json is not a usable Sigstore trusted root');
    expect(messageOf({ 'trusted_root.json': sigstore.trustedRoot, 'identities.json': '[{"issuer": ""}]' })).toContain('identities.json must be a non-empty list');
  });
});

/** A signature manifest of the given payloads and signatures, pushed as is under the digest's signature tag. */
async function pushSignatureManifest(registry: DockerRegistry, repository: string, digest: string, signatures: ReadonlyArray<{ payload: Buffer; signature: string }>): Promise<void> {
  const layers = [];
  for (const { payload, signature } of signatures) {
    layers.push({ mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json', size: payload.length, digest: await pushBlob(registry.url, repository, payload), annotations: { [CosignAnnotations.signature]: signature } });
  }
  const config = Buffer.from('{}');
  const configDigest = await pushBlob(registry.url, repository, config);
  const manifest = JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: { mediaType: 'application/vnd.oci.image.config.v1+json', size: config.length, digest: configDigest }, layers });
  const put = await fetch(`${registry.url}/v2/${repository}/manifests/${signatureTag(digest)}`, { method: 'PUT', headers: { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' }, body: manifest });
  if (put.status !== 201) throw new Error(`signature manifest not pushed: HTTP ${put.status} ${await put.text()}`);
}
