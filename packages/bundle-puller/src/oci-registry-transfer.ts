import { OlmError } from '@olm/core';
import { BundleImageErrorCodes } from './bundle-image-errors.js';
import { parseImageReference } from './image-reference.js';
import { checkDigestAlgorithm, manifestAccept, verifyDigest } from './oci-content.js';
import type { OciRegistryClientOptions } from './oci-registry-client.js';
import { pushFailure, registryRequestsOf, uploadBlob } from './oci-registry-push.js';
import type { RegistryCredential } from './registry-credentials.js';
import type { PullSession } from './registry-requests.js';

/** A manifest or index as stored: its bytes (any media type), the media type and the digest (checked). */
export interface RawManifest {
  readonly bytes: Buffer;
  readonly mediaType: string;
  readonly digest: string;
}

/**
 * Copies content between repositories without reading it: manifests as bytes, blobs as streams. Each
 * method takes a repository as `registry/path` (no tag) and the credentials for it.
 */
export interface OciRegistryTransfer {
  /** A manifest by tag or digest, at most `maxBytes`, checked against the digest pinned or the registry's `Docker-Content-Digest`. */
  readManifest(repository: string, reference: string, maxBytes: number, credentials?: readonly RegistryCredential[]): Promise<RawManifest>;
  /** Whether the repository has a manifest (`HEAD …/manifests/<digest>`). */
  hasManifest(repository: string, digest: string, credentials?: readonly RegistryCredential[]): Promise<boolean>;
  /** Whether the repository has a blob (`HEAD …/blobs/<digest>`): a resumed copy skips it. */
  hasBlob(repository: string, digest: string, credentials?: readonly RegistryCredential[]): Promise<boolean>;
  /** A blob's bytes as they arrive (not checked: the consumer hashes them). */
  openBlob(repository: string, digest: string, credentials?: readonly RegistryCredential[]): Promise<AsyncIterable<Uint8Array>>;
  /** Uploads a blob from a stream (`POST`, then one streamed `PUT …?digest=`); the registry refuses it when the digest does not match. */
  writeBlob(repository: string, digest: string, content: AsyncIterable<Uint8Array>, credentials?: readonly RegistryCredential[]): Promise<void>;
  /** Puts a manifest under a tag or its digest. */
  writeManifest(repository: string, reference: string, manifest: RawManifest, credentials?: readonly RegistryCredential[]): Promise<void>;
}

/** A registry-to-registry transfer client over the registry client's requests (proxies, timeouts, `http` for loopback and `insecureRegistries`, challenges). */
export function createOciRegistryTransfer(options: OciRegistryClientOptions = {}): OciRegistryTransfer {
  const requests = registryRequestsOf(options, 'olm');
  // One session per repository, so that the authorization a challenge earned is reused for its next requests.
  const sessions = new Map<string, PullSession>();
  const sessionOf = (repository: string, credentials: readonly RegistryCredential[] = []): PullSession => {
    let session = sessions.get(repository);
    if (!session) {
      session = { image: parseImageReference(repository), imageText: repository, credentials, signal: new AbortController().signal };
      sessions.set(repository, session);
    }
    return session;
  };
  const exists = async (repository: string, path: string, credentials?: readonly RegistryCredential[]) => {
    const session = sessionOf(repository, credentials);
    const response = await requests.send(session, path, { method: 'HEAD', headers: { Accept: manifestAccept } });
    await response.body?.cancel();
    if (response.status === 200) return true;
    if (response.status === 404) return false;
    throw await requests.failure(response, session, path);
  };
  return {
    async readManifest(repository, reference, maxBytes, credentials) {
      const session = sessionOf(repository, credentials);
      const what = `manifest ${reference} of ${repository}`;
      const response = await requests.get(session, `manifests/${reference}`, manifestAccept);
      if (!response.ok) throw await requests.failure(response, session, what);
      const bytes = await requests.readBody(response, maxBytes, what);
      const expected = reference.includes(':') ? reference : response.headers.get('docker-content-digest');
      if (!expected) throw new OlmError(BundleImageErrorCodes.unsupported, `registry of ${repository} sent ${what} without a Docker-Content-Digest header; refer to the image by digest`);
      verifyDigest(expected, bytes, what);
      let declared: string | undefined;
      try {
        declared = (JSON.parse(bytes.toString('utf8')) as { mediaType?: string }).mediaType;
      } catch {
        throw new OlmError(BundleImageErrorCodes.unsupported, `${what} is not JSON; only OCI and Docker schema 2 manifests and indexes can be copied`);
      }
      const mediaType = declared ?? (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
      return { bytes, mediaType, digest: expected };
    },
    hasManifest: (repository, digest, credentials) => exists(repository, `manifests/${digest}`, credentials),
    hasBlob: (repository, digest, credentials) => {
      checkDigestAlgorithm(digest, `blob ${digest} of ${repository}`);
      return exists(repository, `blobs/${digest}`, credentials);
    },
    async openBlob(repository, digest, credentials) {
      const session = sessionOf(repository, credentials);
      const response = await requests.get(session, `blobs/${digest}`, undefined);
      if (!response.ok) throw await requests.failure(response, session, `blob ${digest}`);
      return (response.body ?? (async function* () {})()) as AsyncIterable<Uint8Array>;
    },
    writeBlob: (repository, digest, content, credentials) => uploadBlob(requests, sessionOf(repository, credentials), digest, () => content),
    async writeManifest(repository, reference, manifest, credentials) {
      const session = sessionOf(repository, credentials);
      const put = await requests.send(session, `manifests/${reference}`, { method: 'PUT', headers: { 'Content-Type': manifest.mediaType }, body: manifest.bytes });
      if (put.status !== 201) throw await pushFailure(put, repository, `manifest ${reference}`);
      await put.body?.cancel();
    },
  };
}
