import { createHash } from 'node:crypto';
import { OlmError, describeError } from '@olm/core';
import { EnvHttpProxyAgent, fetch as proxiedFetch, type Response } from 'undici';
import { parseAuthChallenge, pullSecretHint, RegistryAuthenticator } from './registry-auth.js';
import type { RegistryCredential } from './registry-credentials.js';

export { parseAuthChallenge, type AuthChallenge } from './registry-auth.js';

/** Error codes of image pulls; the unpacker turns them into `BundleUnpackFailed` conditions. */
export const BundleImageErrorCodes = {
  invalidReference: 'OLM_BUNDLE_IMAGE_INVALID_REFERENCE',
  notFound: 'OLM_BUNDLE_IMAGE_NOT_FOUND',
  unauthorized: 'OLM_BUNDLE_IMAGE_UNAUTHORIZED',
  unreachable: 'OLM_BUNDLE_IMAGE_REGISTRY_UNREACHABLE',
  registryError: 'OLM_BUNDLE_IMAGE_REGISTRY_ERROR',
  digestMismatch: 'OLM_BUNDLE_IMAGE_DIGEST_MISMATCH',
  unsupported: 'OLM_BUNDLE_IMAGE_UNSUPPORTED',
  tooLarge: 'OLM_BUNDLE_IMAGE_TOO_LARGE',
} as const;

export const MediaTypes = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

/** Layer media types we can read: plain or gzip tar (the content decides; the type only rules out zstd and the like). */
const readableLayerTypes = new Set<string>([
  MediaTypes.ociLayer,
  MediaTypes.ociLayerGzip,
  MediaTypes.dockerLayerGzip,
  'application/vnd.oci.image.layer.nondistributable.v1.tar',
  'application/vnd.oci.image.layer.nondistributable.v1.tar+gzip',
  'application/vnd.docker.image.rootfs.foreign.diff.tar.gzip',
]);

const manifestAccept = [MediaTypes.ociManifest, MediaTypes.dockerManifest, MediaTypes.ociIndex, MediaTypes.dockerManifestList].join(', ');

/** `registry/repository:tag` or `…@sha256:…`, split the way the distribution API needs it. */
export interface ImageReference {
  /** Host (and port) as written, with Docker Hub's API host for `docker.io`. */
  readonly registry: string;
  readonly repository: string;
  /** A tag or a digest: what goes after `/manifests/`. */
  readonly reference: string;
  readonly digest?: string;
}

/**
 * Splits an image pull spec as Docker does: the first component is a registry when it has a `.`
 * or `:` or is `localhost`, else the image is on Docker Hub (`library/` for one-component names);
 * no tag and no digest means `latest`.
 */
export function parseImageReference(text: string): ImageReference {
  const invalid = (why: string) =>
    new OlmError(BundleImageErrorCodes.invalidReference, `invalid bundle image reference ${JSON.stringify(text)}: ${why}; fix the bundle's image in the catalog`);
  if (text.trim() === '' || /\s/.test(text)) throw invalid('it is empty or contains spaces');
  let rest = text;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(digest)) throw invalid(`${JSON.stringify(digest)} is not a digest`);
  }
  const slash = rest.indexOf('/');
  const first = slash === -1 ? '' : rest.slice(0, slash);
  let registry = 'docker.io';
  if (first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost' || first.startsWith('['))) {
    registry = first;
    rest = rest.slice(slash + 1);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon !== -1) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!/^[\w][\w.-]{0,127}$/.test(tag)) throw invalid(`${JSON.stringify(tag)} is not a valid tag`);
  }
  let repository = rest;
  if (!/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(repository)) {
    throw invalid(`repository ${JSON.stringify(repository)} must be lowercase path components`);
  }
  if (registry === 'docker.io' || registry === 'index.docker.io') {
    registry = 'registry-1.docker.io';
    if (!repository.includes('/')) repository = `library/${repository}`;
  }
  return { registry, repository, reference: digest ?? tag ?? 'latest', ...(digest ? { digest } : {}) };
}

/** A content descriptor of a manifest or index. */
export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly platform?: { readonly os?: string; readonly architecture?: string; readonly variant?: string };
}

/** From an image index (manifest list), the linux/amd64 manifest, else the first one. */
export function selectPlatformManifest(manifests: readonly Descriptor[]): Descriptor | undefined {
  return manifests.find((entry) => entry.platform?.os === 'linux' && entry.platform.architecture === 'amd64') ?? manifests[0];
}

/** `sha256:<hex>` of some bytes. */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Refuses content whose sha256 is not the digest it was asked for under (only sha256 is checked; others are refused). */
export function verifyDigest(expected: string, bytes: Uint8Array, what: string): void {
  if (!expected.startsWith('sha256:')) {
    throw new OlmError(BundleImageErrorCodes.unsupported, `${what} has digest ${expected}; only sha256 digests can be verified; rebuild the image with sha256 digests`);
  }
  const actual = sha256Digest(bytes);
  if (actual !== expected) {
    throw new OlmError(
      BundleImageErrorCodes.digestMismatch,
      `digest mismatch for ${what}: expected ${expected}, got ${actual}; the registry served corrupted or tampered content, refused (re-push the image, or check the registry's storage)`,
      { details: { expected, actual } },
    );
  }
}

export interface PulledLayer {
  readonly digest: string;
  readonly mediaType: string;
  /** The blob as stored: a tar archive, gzip-compressed or not. */
  readonly bytes: Buffer;
}

export interface PulledImage {
  /** The digest of the image manifest that was read (after choosing from an index). */
  readonly digest: string;
  /** Layers, lowest first. */
  readonly layers: readonly PulledLayer[];
}

export interface OciRegistryClientOptions {
  /**
   * Registries reached over plain http, as `host` (any port) or `host:port`. `localhost`,
   * `127.0.0.1` and `[::1]` always are; every other registry is https.
   */
  readonly insecureRegistries?: readonly string[];
  /** Per request. Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Largest manifest or layer blob accepted. Default 64 MiB (bundle images are a few KiB to MiB). */
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
}

export interface OciRegistryClient {
  /** Reads the image's manifest (choosing linux/amd64 from an index) and its layer blobs, verifying every digest. */
  pullImage(image: string, options?: PullOptions): Promise<PulledImage>;
}

interface ImageManifest {
  schemaVersion?: number;
  mediaType?: string;
  manifests?: Descriptor[];
  layers?: Descriptor[];
}

/** One pull: the image, the credentials it may use, and the Authorization that worked so far. */
interface PullSession {
  readonly image: ImageReference;
  readonly imageText: string;
  readonly credentials: readonly RegistryCredential[];
  readonly signal: AbortSignal;
  authorization?: string;
  /** Whose credentials the authorization carries (for messages). */
  authorizedBy?: string;
}

/**
 * A client of the OCI distribution API: manifests and blobs over http(s), through the proxies of
 * the environment, answering `Basic` and `Bearer` challenges with the pull secrets' credentials
 * (or anonymously, as public registries such as Docker Hub, quay.io and ghcr.io allow).
 */
export function createOciRegistryClient(options: OciRegistryClientOptions = {}): OciRegistryClient {
  const insecure = new Set(options.insecureRegistries ?? []);
  const timeoutMs = options.requestTimeoutMs ?? 60_000;
  const maxBlobBytes = options.maxBlobBytes ?? 64 * 1024 * 1024;
  const userAgent = options.userAgent ?? 'olm-catalog-operator';
  // undici's agent reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY (a direct connection when none is set).
  const dispatcher = new EnvHttpProxyAgent({
    ...(options.proxy?.httpProxy !== undefined ? { httpProxy: options.proxy.httpProxy } : {}),
    ...(options.proxy?.httpsProxy !== undefined ? { httpsProxy: options.proxy.httpsProxy } : {}),
    ...(options.proxy?.noProxy !== undefined ? { noProxy: options.proxy.noProxy } : {}),
  });

  const schemeOf = (registry: string): 'http' | 'https' => {
    const host = registry.startsWith('[') ? registry.slice(0, registry.indexOf(']') + 1) : registry.split(':')[0]!;
    const local = host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
    return local || insecure.has(registry) || insecure.has(host) ? 'http' : 'https';
  };

  async function send(url: string, init: { method?: string; headers: Record<string, string>; body?: string }, where: string, signal: AbortSignal): Promise<Response> {
    try {
      return await proxiedFetch(url, { ...init, redirect: 'follow', dispatcher, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
    } catch (error) {
      if (signal.aborted) throw error;
      const cause = (error as { cause?: unknown }).cause;
      const detail = cause ? describeError(cause) : describeError(error);
      throw new OlmError(
        BundleImageErrorCodes.unreachable,
        `cannot reach ${where} (${url}): ${detail}; check that the registry is up and reachable from the catalog operator (and the HTTPS_PROXY, HTTP_PROXY and NO_PROXY it runs with)` +
          (url.startsWith('https:') ? ', or list it in insecureRegistries if it serves plain http' : ''),
        { cause: error },
      );
    }
  }

  /**
   * GET, answering a `401` challenge with each candidate credential in turn (anonymously when there
   * are none); the first that the registry accepts is used for the rest of the pull.
   */
  async function get(session: PullSession, path: string, accept: string | undefined): Promise<Response> {
    const { image, signal } = session;
    const url = `${schemeOf(image.registry)}://${image.registry}/v2/${image.repository}/${path}`;
    const headers: Record<string, string> = { 'User-Agent': userAgent, ...(accept ? { Accept: accept } : {}) };
    const where = `registry ${image.registry}`;
    const authorizedSend = (authorization: string | undefined) => send(url, { headers: { ...headers, ...(authorization ? { Authorization: authorization } : {}) } }, where, signal);
    let response = await authorizedSend(session.authorization);
    if (response.status !== 401) return response;
    const challenge = parseAuthChallenge(response.headers.get('www-authenticate'));
    await response.body?.cancel();
    const refused: string[] = [];
    const context = { registry: image.registry, repository: image.repository, imageText: session.imageText, credentials: session.credentials, signal };
    for await (const attempt of authenticator.authorizations(challenge, context, refused)) {
      response = await authorizedSend(attempt.header);
      if (response.status !== 401 && response.status !== 403) {
        session.authorization = attempt.header;
        if (attempt.credential) session.authorizedBy = attempt.credential.source;
        return response;
      }
      await response.body?.cancel();
      refused.push(`registry ${image.registry} refused ${attempt.credential ? `the credentials of ${attempt.credential.source}` : 'an anonymous token'} (HTTP ${response.status})`);
    }
    throw new OlmError(
      BundleImageErrorCodes.unauthorized,
      `not allowed to pull ${session.imageText}: ${refused.join('; ')}; ${session.credentials.length > 0 ? 'fix the credentials in that pull secret, or ' : ''}${pullSecretHint(image.registry)}`,
    );
  }

  // One authenticator, so its tokens are reused across pulls until they expire.
  const authenticator = new RegistryAuthenticator(send, userAgent);

  async function failure(response: Response, session: PullSession, what: string): Promise<OlmError> {
    const { image, imageText } = session;
    const text = await response.text().catch(() => '');
    let detail = '';
    try {
      const errors = (JSON.parse(text) as { errors?: Array<{ code?: string; message?: string }> }).errors ?? [];
      detail = errors.map((error) => [error.code, error.message].filter(Boolean).join(': ')).join('; ');
    } catch {
      detail = text.slice(0, 200);
    }
    const answered = `registry ${image.registry} answered HTTP ${response.status}${detail ? ` (${detail})` : ''}`;
    if (response.status === 404) {
      return new OlmError(
        BundleImageErrorCodes.notFound,
        `bundle image ${imageText} not found: ${answered} for ${what}; push the bundle image, or fix the bundle's image reference in the catalog`,
      );
    }
    if (response.status === 401 || response.status === 403) {
      return new OlmError(
        BundleImageErrorCodes.unauthorized,
        `not allowed to pull ${imageText}: ${answered} for ${what}${session.authorizedBy ? ` with the credentials of ${session.authorizedBy}` : ''}; ${pullSecretHint(image.registry)}, with credentials that may pull this repository`,
      );
    }
    return new OlmError(BundleImageErrorCodes.registryError, `pulling ${imageText}: ${answered} for ${what}; retried later`);
  }

  async function readBody(response: Response, limit: number, what: string): Promise<Buffer> {
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    const tooLarge = () =>
      new OlmError(BundleImageErrorCodes.tooLarge, `${what} is larger than ${limit} bytes; a bundle image holds only manifests and metadata: is this really a bundle image?`);
    if (declared > limit) {
      await response.body?.cancel();
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let total = 0;
    if (response.body) {
      for await (const chunk of response.body) {
        total += chunk.byteLength;
        if (total > limit) throw tooLarge();
        chunks.push(Buffer.from(chunk));
      }
    }
    return Buffer.concat(chunks);
  }

  async function fetchManifest(session: PullSession, reference: string) {
    const { image, imageText } = session;
    const what = `manifest ${JSON.stringify(reference)} of repository ${image.repository}`;
    const response = await get(session, `manifests/${reference}`, manifestAccept);
    if (!response.ok) throw await failure(response, session, what);
    const bytes = await readBody(response, Math.min(maxBlobBytes, 4 * 1024 * 1024), `${what} of ${imageText}`);
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

  return {
    async pullImage(imageText, pullOptions = {}) {
      const session: PullSession = {
        image: parseImageReference(imageText),
        imageText,
        credentials: pullOptions.credentials ?? [],
        signal: pullOptions.signal ?? new AbortController().signal,
      };
      let { manifest, mediaType, digest } = await fetchManifest(session, session.image.reference);
      if (mediaType === MediaTypes.ociIndex || mediaType === MediaTypes.dockerManifestList || (manifest.manifests && !manifest.layers)) {
        const chosen = selectPlatformManifest(manifest.manifests ?? []);
        if (!chosen) throw new OlmError(BundleImageErrorCodes.unsupported, `the image index of ${imageText} lists no manifests`);
        ({ manifest, mediaType, digest } = await fetchManifest(session, chosen.digest));
      }
      if (manifest.schemaVersion !== 2 || !Array.isArray(manifest.layers)) {
        throw new OlmError(
          BundleImageErrorCodes.unsupported,
          `${imageText} has an unsupported manifest (media type ${JSON.stringify(mediaType)}, schemaVersion ${String(manifest.schemaVersion)}); push it as an OCI image or Docker schema 2 manifest`,
        );
      }
      const layers: PulledLayer[] = [];
      for (const layer of manifest.layers) {
        const what = `layer ${layer.digest} of ${imageText}`;
        if (!readableLayerTypes.has(layer.mediaType)) {
          throw new OlmError(
            BundleImageErrorCodes.unsupported,
            `${what} has media type ${JSON.stringify(layer.mediaType)}; only tar layers, plain or gzip-compressed, can be read: rebuild the bundle image without zstd or other compression`,
          );
        }
        if (layer.size > maxBlobBytes) {
          throw new OlmError(BundleImageErrorCodes.tooLarge, `${what} is ${layer.size} bytes, more than ${maxBlobBytes}; a bundle image holds only manifests and metadata: is this really a bundle image?`);
        }
        const response = await get(session, `blobs/${layer.digest}`, undefined);
        if (!response.ok) throw await failure(response, session, `blob ${layer.digest}`);
        const bytes = await readBody(response, maxBlobBytes, what);
        verifyDigest(layer.digest, bytes, what);
        layers.push({ digest: layer.digest, mediaType: layer.mediaType, bytes });
      }
      return { digest, layers };
    },
  };
}
