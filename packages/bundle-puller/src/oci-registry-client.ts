import { createHash } from 'node:crypto';
import { OlmError, describeError } from '@olm/core';
import { BundleImageErrorCodes } from './bundle-image-errors.js';
import { BundleImageBudget, defaultBundleImageLimits } from './bundle-image-limits.js';
import { parseImageReference } from './image-reference.js';
import {
  checkDigestAlgorithm,
  manifestAccept,
  MediaTypes,
  readableLayerTypes,
  selectPlatformManifest,
  sha256Digest,
  verifyComputedDigest,
  verifyDigest,
  type Descriptor,
  type ImageConfig,
  type ImageManifest,
  type PulledImage,
  type PulledLayer,
} from './oci-content.js';
import type { RegistryCredential } from './registry-credentials.js';
import { registryRequestsOf } from './oci-registry-push.js';
import type { PullSession, RegistryRequests } from './registry-requests.js';

export interface OciRegistryClientOptions {
  /**
   * Registries reached over plain http, as `host` (any port) or `host:port`. `localhost`,
   * `127.0.0.1` and `[::1]` always are; every other registry is https.
   */
  readonly insecureRegistries?: readonly string[];
  /** Per request. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Largest image manifest or index accepted (at most 4 MiB are read). Layers are bounded by the pull's `BundleImageLimits`. */
  readonly maxBlobBytes?: number;
  readonly userAgent?: string;
  /**
   * Proxies for registry requests; each unset field falls back to the environment (`HTTP_PROXY`,
   * `HTTPS_PROXY`, `NO_PROXY`, also lower case), as other Kubernetes clients read them.
   */
  readonly proxy?: { readonly httpProxy?: string; readonly httpsProxy?: string; readonly noProxy?: string };
}

export interface PullOptions {
  readonly signal?: AbortSignal;
  /** Credentials that apply to the image's registry, most specific first (`credentialsForImage`). Anonymous when empty. */
  readonly credentials?: readonly RegistryCredential[];
  /** What the image may use (layers, compressed bytes); shared with the unpack of its layers. Default: `defaultBundleImageLimits`. */
  readonly budget?: BundleImageBudget;
}

export interface OciRegistryClient {
  /** Reads the image's manifest (choosing linux/amd64 from an index), verifying its digest; its layers stream when opened, each digest checked. */
  pullImage(image: string, options?: PullOptions): Promise<PulledImage>;
}

interface ReadManifest {
  readonly manifest: ImageManifest;
  readonly mediaType: string;
  readonly digest: string;
}

/** Reads one manifest (by tag or digest), checking its digest: the one pinned, else the registry's `Docker-Content-Digest`. */
async function fetchManifest(requests: RegistryRequests, session: PullSession, reference: string, maxBlobBytes: number): Promise<ReadManifest> {
  const { image, imageText } = session;
  const what = `manifest ${JSON.stringify(reference)} of repository ${image.repository}`;
  const response = await requests.get(session, `manifests/${reference}`, manifestAccept);
  if (!response.ok) throw await requests.failure(response, session, what);
  const bytes = await requests.readBody(response, Math.min(maxBlobBytes, 4 * 1024 * 1024), `${what} of ${imageText}`);
  // Pinned by digest: the content must match it. By tag: the registry's own digest header, when sent, must match too.
  const expected = reference.includes(':') ? reference : (response.headers.get('docker-content-digest') ?? undefined);
  if (expected) verifyDigest(expected, bytes, `${what} of ${imageText}`);
  let manifest: ImageManifest;
  try {
    manifest = JSON.parse(bytes.toString('utf8')) as ImageManifest;
  } catch (error) {
    throw new OlmError(BundleImageErrorCodes.unsupported, `${what} of ${imageText} is not JSON: ${describeError(error)}`);
  }
  const mediaType = manifest.mediaType ?? (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  return { manifest, mediaType, digest: expected ?? sha256Digest(bytes) };
}

/** The image manifest of the reference: itself, or from an index the linux/amd64 one (else the first); and the digest the reference resolved to. */
async function imageManifest(requests: RegistryRequests, session: PullSession, maxBlobBytes: number): Promise<ReadManifest & { referenceDigest: string }> {
  const read = await fetchManifest(requests, session, session.image.reference, maxBlobBytes);
  const { manifest, mediaType } = read;
  if (mediaType !== MediaTypes.ociIndex && mediaType !== MediaTypes.dockerManifestList && !(manifest.manifests && !manifest.layers)) return { ...read, referenceDigest: read.digest };
  const chosen = selectPlatformManifest(manifest.manifests ?? []);
  if (!chosen) throw new OlmError(BundleImageErrorCodes.unsupported, `the image index of ${session.imageText} lists no manifests`);
  return { ...(await fetchManifest(requests, session, chosen.digest, maxBlobBytes)), referenceDigest: read.digest };
}

/** The image configuration blob (labels), bounded and checked against its digest. */
async function fetchConfig(requests: RegistryRequests, session: PullSession, descriptor: Descriptor | undefined, maxBlobBytes: number): Promise<ImageConfig> {
  if (!descriptor) return {};
  const what = `config blob ${descriptor.digest} of ${session.imageText}`;
  checkDigestAlgorithm(descriptor.digest, what);
  const response = await requests.get(session, `blobs/${descriptor.digest}`, undefined);
  if (!response.ok) throw await requests.failure(response, session, `blob ${descriptor.digest}`);
  const bytes = await requests.readBody(response, Math.min(maxBlobBytes, 4 * 1024 * 1024), what);
  verifyDigest(descriptor.digest, bytes, what);
  try {
    return JSON.parse(bytes.toString('utf8')) as ImageConfig;
  } catch (error) {
    throw new OlmError(BundleImageErrorCodes.unsupported, `${what} is not JSON: ${describeError(error)}`);
  }
}

/**
 * One layer blob, streamed: refused when its media type cannot be read, when it takes the image past
 * its compressed bytes (`BundleImageLimits`), or (at its end) when its digest does not match.
 */
function streamLayer(requests: RegistryRequests, session: PullSession, layer: Descriptor, index: number, count: number, budget: BundleImageBudget): PulledLayer {
  const what = `layer ${layer.digest}${count > 1 ? ` (${index + 1} of ${count})` : ''} of ${session.imageText}`;
  if (!readableLayerTypes.has(layer.mediaType)) {
    throw new OlmError(
      BundleImageErrorCodes.unsupported,
      `${what} has media type ${JSON.stringify(layer.mediaType)}; only tar layers, plain or gzip-compressed, can be read: rebuild the bundle image without zstd or other compression`,
    );
  }
  checkDigestAlgorithm(layer.digest, what);
  async function* open(): AsyncGenerator<Buffer> {
    const response = await requests.get(session, `blobs/${layer.digest}`, undefined);
    if (!response.ok) throw await requests.failure(response, session, `blob ${layer.digest}`);
    const hash = createHash('sha256');
    // leaving this loop early (a bound, a bad tar) cancels the body, which lets the connection go
    for await (const chunk of response.body ?? []) {
      budget.addCompressed(chunk.byteLength, what);
      hash.update(chunk);
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    verifyComputedDigest(layer.digest, `sha256:${hash.digest('hex')}`, what);
  }
  return { digest: layer.digest, mediaType: layer.mediaType, open };
}

/** A small blob (an image configuration), read whole within 4 MiB and checked against its digest. */
async function fetchBlob(requests: RegistryRequests, session: PullSession, descriptor: Descriptor, what: string): Promise<Buffer> {
  checkDigestAlgorithm(descriptor.digest, what);
  const response = await requests.get(session, `blobs/${descriptor.digest}`, undefined);
  if (!response.ok) throw await requests.failure(response, session, what);
  const bytes = await requests.readBody(response, 4 * 1024 * 1024, what);
  verifyDigest(descriptor.digest, bytes, what);
  return bytes;
}

/** Refuses an image whose manifest lists more layers, or more layer bytes, than its limits allow, before any layer is read. */
function checkLayerList(layers: readonly Descriptor[], budget: BundleImageBudget): void {
  const { limits } = budget;
  if (layers.length > limits.maxLayers) throw budget.fail('maxLayers', 'its manifest', `lists ${layers.length} layers`);
  const declared = layers.reduce((sum, layer) => sum + (Number.isSafeInteger(layer.size) && layer.size > 0 ? layer.size : 0), 0);
  if (declared > limits.maxCompressedBytes) {
    const distinct = new Set(layers.map((layer) => layer.digest)).size;
    throw budget.fail('maxCompressedBytes', 'its manifest', `lists ${layers.length} layers (${distinct} distinct blobs) of ${declared} bytes in all; every layer counts, also one naming a blob another layer names`);
  }
}

/**
 * A client of the OCI distribution API: manifests and blobs over http(s), through the proxies of
 * the environment, answering `Basic` and `Bearer` challenges with the pull secrets' credentials
 * (or anonymously, as public registries such as Docker Hub, quay.io and ghcr.io allow).
 */
export function createOciRegistryClient(options: OciRegistryClientOptions = {}): OciRegistryClient {
  const maxBlobBytes = options.maxBlobBytes ?? 64 * 1024 * 1024;
  const requests = registryRequestsOf(options, 'olm-catalog-operator');
  return {
    async pullImage(imageText, pullOptions = {}): Promise<PulledImage> {
      const session: PullSession = {
        image: parseImageReference(imageText),
        imageText,
        credentials: pullOptions.credentials ?? [],
        signal: pullOptions.signal ?? new AbortController().signal,
      };
      const { manifest, mediaType, digest, referenceDigest } = await imageManifest(requests, session, maxBlobBytes);
      if (manifest.schemaVersion !== 2 || !Array.isArray(manifest.layers)) {
        throw new OlmError(
          BundleImageErrorCodes.unsupported,
          `${imageText} has an unsupported manifest (media type ${JSON.stringify(mediaType)}, schemaVersion ${String(manifest.schemaVersion)}); push it as an OCI image or Docker schema 2 manifest`,
        );
      }
      const budget = pullOptions.budget ?? new BundleImageBudget(defaultBundleImageLimits, imageText);
      checkLayerList(manifest.layers, budget);
      const count = manifest.layers.length;
      const layers = manifest.layers.map((layer, index) => streamLayer(requests, session, layer, index, count, budget));
      const descriptor = manifest.config;
      return {
        digest,
        referenceDigest,
        layers,
        config: () => fetchConfig(requests, session, descriptor, maxBlobBytes),
        ...(descriptor ? { readConfig: () => fetchBlob(requests, session, descriptor, `config ${descriptor.digest} of ${imageText}`) } : {}),
      };
    },
  };
}
