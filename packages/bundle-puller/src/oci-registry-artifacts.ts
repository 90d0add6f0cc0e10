import { OlmError, describeError } from '@olm/core';
import { BundleImageErrorCodes } from './bundle-image-errors.js';
import { parseImageReference } from './image-reference.js';
import { checkDigestAlgorithm, sha256Digest, verifyDigest } from './oci-content.js';
import type { OciRegistryClientOptions } from './oci-registry-client.js';
import type { RegistryCredential } from './registry-credentials.js';
import { createRegistryRequests, type PullSession } from './registry-requests.js';

/** A descriptor as an artifact manifest lists it, annotations included (cosign keeps its signatures there). */
export interface ArtifactDescriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A manifest read whole: its bytes (digest checked), what it parses to, and its digest. */
export interface ArtifactManifest {
  readonly bytes: Buffer;
  readonly digest: string;
  readonly mediaType: string;
  readonly manifest: { readonly mediaType?: string; readonly config?: ArtifactDescriptor; readonly layers?: readonly ArtifactDescriptor[]; readonly annotations?: Readonly<Record<string, string>> };
}

export interface ArtifactReadOptions {
  readonly signal?: AbortSignal;
  readonly credentials?: readonly RegistryCredential[];
}

/**
 * Reads manifests and small blobs of other artifacts than images (signatures, attestations) whole and
 * bounded, with the registry client's requests (proxies, timeouts, challenges, digests checked).
 */
export interface OciArtifactReader {
  /** The manifest under a tag or digest, at most `maxBytes`; undefined when the registry has none (404). */
  readManifest(repositoryReference: string, maxBytes: number, options?: ArtifactReadOptions): Promise<ArtifactManifest | undefined>;
  /** One blob of the image's repository, at most `maxBytes`, checked against its digest. */
  readBlob(image: string, digest: string, maxBytes: number, options?: ArtifactReadOptions): Promise<Buffer>;
}

const artifactAccept = ['application/vnd.oci.image.manifest.v1+json', 'application/vnd.docker.distribution.manifest.v2+json', 'application/vnd.oci.image.index.v1+json'].join(', ');

export function createOciArtifactReader(options: OciRegistryClientOptions = {}): OciArtifactReader {
  const requests = createRegistryRequests({
    timeoutMs: options.requestTimeoutMs ?? 60_000,
    userAgent: options.userAgent ?? 'olm',
    ...(options.insecureRegistries ? { insecureRegistries: options.insecureRegistries } : {}),
    ...(options.proxy ? { proxy: options.proxy } : {}),
  });
  const sessionOf = (imageText: string, readOptions: ArtifactReadOptions): PullSession => ({
    image: parseImageReference(imageText),
    imageText,
    credentials: readOptions.credentials ?? [],
    signal: readOptions.signal ?? new AbortController().signal,
  });
  return {
    async readManifest(imageText, maxBytes, readOptions = {}) {
      const session = sessionOf(imageText, readOptions);
      const reference = session.image.reference;
      const what = `manifest ${JSON.stringify(reference)} of repository ${session.image.repository}`;
      const response = await requests.get(session, `manifests/${reference}`, artifactAccept);
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (!response.ok) throw await requests.failure(response, session, what);
      const bytes = await requests.readBody(response, maxBytes, `${what} of ${imageText}`);
      const expected = reference.includes(':') ? reference : (response.headers.get('docker-content-digest') ?? undefined);
      if (expected) verifyDigest(expected, bytes, `${what} of ${imageText}`);
      let manifest: ArtifactManifest['manifest'];
      try {
        manifest = JSON.parse(bytes.toString('utf8')) as ArtifactManifest['manifest'];
      } catch (error) {
        throw new OlmError(BundleImageErrorCodes.unsupported, `${what} of ${imageText} is not JSON: ${describeError(error)}`);
      }
      const mediaType = manifest.mediaType ?? (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
      return { bytes, digest: expected ?? sha256Digest(bytes), mediaType, manifest };
    },
    async readBlob(imageText, digest, maxBytes, readOptions = {}) {
      const session = sessionOf(imageText, readOptions);
      const what = `blob ${digest} of ${imageText}`;
      checkDigestAlgorithm(digest, what);
      const response = await requests.get(session, `blobs/${digest}`, undefined);
      if (!response.ok) throw await requests.failure(response, session, what);
      const bytes = await requests.readBody(response, maxBytes, what);
      verifyDigest(digest, bytes, what);
      return bytes;
    },
  };
}
