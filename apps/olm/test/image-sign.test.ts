import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOciArtifactReader } from '@olm/bundle-puller/registry';
import { parseSignaturePolicy, signatureTag, verifyImageSignatures } from '@olm/image-signatures';
import { dockerRegistryBinary, startDockerRegistry, type DockerRegistry } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const bundleDir = fileURLToPath(new URL('../../../examples/bundles/acme-backup.v0.1.0/', import.meta.url));
const binary = dockerRegistryBinary();

describe('olm image sign', () => {
  it('--help shows how to make a key, sign and set the policy', async () => {
    const run = await runCliCaptured(['image', 'sign', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: olm image sign [options] <ref>');
    expect(run.stdout).toContain('--key <file>');
    expect(run.stdout).toContain('kubectl -n olm annotate catalogsource acme olm.operatorframework.io/signature-policy=acme-keys');
  });

  it('exits 2 without --key, with an unreadable key or a public key, naming what to give', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'olm-image-sign-'));
    const publicKey = join(directory, 'acme.pub');
    await writeFile(publicKey, generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }));
    const missing = await runCliCaptured(['image', 'sign', 'localhost:1/acme/x:v1']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--key <file>' not specified");
    const unreadable = await runCliCaptured(['image', 'sign', 'localhost:1/acme/x:v1', '--key', join(directory, 'nope.pem')]);
    expect(unreadable.code, unreadable.stderr).toBe(2);
    expect(unreadable.stderr).toContain(`cannot read the signing key ${join(directory, 'nope.pem')}`);
    const notPrivate = await runCliCaptured(['image', 'sign', 'localhost:1/acme/x:v1', '--key', publicKey]);
    expect(notPrivate.code, notPrivate.stderr).toBe(2);
    expect(notPrivate.stderr).toContain(`--key ${publicKey}: the signing key is not an unencrypted PEM private key`);
  });

  describe.skipIf(!binary)('against a real registry', () => {
    let registry: DockerRegistry;
    let directory: string;
    beforeAll(async () => {
      directory = await mkdtemp(join(tmpdir(), 'olm-image-sign-registry-'));
      registry = await startDockerRegistry(binary!, directory);
    });
    afterAll(() => registry?.stop());

    it('signs a built bundle image so that a policy with its public key accepts it, and another key does not', async () => {
      const ref = `${registry.host}/acme/backup-bundle:v0.1.0`;
      const built = await runCliCaptured(['bundle', 'build', bundleDir, '--tag', ref]);
      expect(built.code, built.stderr).toBe(0);
      const reader = createOciArtifactReader();
      const digest = (await reader.readManifest(ref, 1 << 20))!.digest;
      const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const keyFile = join(directory, 'acme.key');
      await writeFile(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const signed = await runCliCaptured(['image', 'sign', ref, '--key', keyFile]);
      expect(signed.code, signed.stderr).toBe(0);
      expect(signed.stdout).toBe(`signed ${ref} (digest ${digest}): ${registry.host}/acme/backup-bundle:${signatureTag(digest)}\n`);
      const policy = (pem: string) => parseSignaturePolicy({ 'acme.pub': pem }, 'configmap olm/acme-keys');
      await expect(verifyImageSignatures({ reader, image: ref, digest, policy: policy(pair.publicKey.export({ type: 'spki', format: 'pem' }) as string) })).resolves.toEqual({ signer: 'key acme.pub' });
      const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
      await expect(verifyImageSignatures({ reader, image: ref, digest, policy: policy(other) })).rejects.toMatchObject({ code: 'OLM_IMAGE_SIGNATURE_INVALID' });
    });
  });
});
