import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { BundleImageErrorCodes, createOciRegistryClient, parseAuthChallenge, parseImageReference, selectPlatformManifest, sha256Digest, verifyDigest } from './index.js';

describe('image references', () => {
  it('splits registry, repository and tag', () => {
    expect(parseImageReference('127.0.0.1:5000/acme/thing-bundle:v1')).toEqual({ registry: '127.0.0.1:5000', repository: 'acme/thing-bundle', reference: 'v1' });
    expect(parseImageReference('quay.io/acme/bundle')).toEqual({ registry: 'quay.io', repository: 'acme/bundle', reference: 'latest' });
    expect(parseImageReference('localhost/bundle:1.0.0')).toEqual({ registry: 'localhost', repository: 'bundle', reference: '1.0.0' });
    expect(parseImageReference('[::1]:5000/bundle:x')).toEqual({ registry: '[::1]:5000', repository: 'bundle', reference: 'x' });
  });

  it('uses the digest when there is one, ahead of the tag', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(parseImageReference(`quay.io/acme/bundle:v1@${digest}`)).toEqual({ registry: 'quay.io', repository: 'acme/bundle', reference: digest, digest });
  });

  it('puts names without a registry on Docker Hub, official images under library/', () => {
    expect(parseImageReference('busybox')).toEqual({ registry: 'registry-1.docker.io', repository: 'library/busybox', reference: 'latest' });
    expect(parseImageReference('acme/bundle:v2')).toEqual({ registry: 'registry-1.docker.io', repository: 'acme/bundle', reference: 'v2' });
    expect(parseImageReference('docker.io/acme/bundle:v2').registry).toBe('registry-1.docker.io');
  });

  it('refuses malformed references with a message naming them', () => {
    for (const text of ['', 'quay.io/Acme/bundle', 'quay.io/acme/bundle:bad tag', 'quay.io/acme/bundle@nodigest']) {
      let caught: unknown;
      try {
        parseImageReference(text);
      } catch (error) {
        caught = error;
      }
      expect(hasErrorCode(caught, BundleImageErrorCodes.invalidReference), text).toBe(true);
      expect((caught as Error).message).toContain(JSON.stringify(text));
    }
  });
});

describe('WWW-Authenticate challenges', () => {
  it('reads a bearer challenge with realm, service and scope', () => {
    expect(
      parseAuthChallenge('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull"'),
    ).toEqual({
      scheme: 'bearer',
      parameters: { realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:library/busybox:pull' },
    });
  });

  it('keeps commas and escaped quotes inside quoted values, and accepts unquoted ones and spaces', () => {
    expect(parseAuthChallenge('bearer realm = "https://r/token" , scope="repository:a:pull,push", error=insufficient_scope, note="say \\"hi\\""')).toEqual({
      scheme: 'bearer',
      parameters: { realm: 'https://r/token', scope: 'repository:a:pull,push', error: 'insufficient_scope', note: 'say "hi"' },
    });
  });

  it('stops at a second challenge and reads Basic too', () => {
    expect(parseAuthChallenge('Basic realm="Registry Realm", Bearer realm="https://x/token"')).toEqual({ scheme: 'basic', parameters: { realm: 'Registry Realm' } });
    expect(parseAuthChallenge(undefined)).toBeUndefined();
    expect(parseAuthChallenge('')).toBeUndefined();
  });
});

describe('image indexes', () => {
  const manifest = (digest: string, os: string, architecture: string) => ({ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest, size: 1, platform: { os, architecture } });

  it('picks linux/amd64, else the first manifest', () => {
    expect(selectPlatformManifest([manifest('a', 'linux', 'arm64'), manifest('b', 'linux', 'amd64')])?.digest).toBe('b');
    expect(selectPlatformManifest([manifest('a', 'linux', 'arm64'), manifest('c', 'windows', 'amd64')])?.digest).toBe('a');
    expect(selectPlatformManifest([])).toBeUndefined();
  });
});

describe('digests', () => {
  it('accepts content matching its sha256 digest and refuses anything else', () => {
    const bytes = Buffer.from('abc');
    const digest = sha256Digest(bytes);
    expect(digest).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(() => verifyDigest(digest, bytes, 'layer x')).not.toThrow();
    let caught: unknown;
    try {
      verifyDigest(digest, Buffer.from('abd'), 'layer x of img');
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, BundleImageErrorCodes.digestMismatch)).toBe(true);
    expect((caught as Error).message).toMatch(/^digest mismatch for layer x of img: expected sha256:[0-9a-f]{64}, got sha256:[0-9a-f]{64}; /);
    expect(() => verifyDigest(`sha512:${'0'.repeat(128)}`, bytes, 'layer y')).toThrow(/only sha256 digests can be verified/);
  });
});

describe('plain http registries', () => {
  /** A registry on a loopback address that is not 127.0.0.1, answering every manifest request with 404. */
  async function plainRegistry(): Promise<{ host: string; requests: string[]; close(): Promise<void> }> {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ errors: [{ code: 'MANIFEST_UNKNOWN', message: 'manifest unknown' }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
    const { port } = server.address() as AddressInfo;
    return { host: `127.0.0.2:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('speaks https to a registry unless it is listed in insecureRegistries (by host:port or host)', async () => {
    const registry = await plainRegistry();
    try {
      const image = `${registry.host}/acme/bundle:v1`;
      // https to a plain http server fails in the TLS handshake: the server never sees a request line
      await expect(createOciRegistryClient({ requestTimeoutMs: 5_000 }).pullImage(image)).rejects.toThrow();
      expect(registry.requests).toEqual([]);
      for (const listed of [registry.host, '127.0.0.2']) {
        const error = await createOciRegistryClient({ insecureRegistries: [listed], requestTimeoutMs: 5_000 }).pullImage(image).catch((caught: unknown) => caught);
        expect(String((error as Error).message)).toContain('MANIFEST_UNKNOWN');
      }
      expect(registry.requests).toEqual(['GET /v2/acme/bundle/manifests/v1', 'GET /v2/acme/bundle/manifests/v1']);
    } finally {
      await registry.close();
    }
  });
});
