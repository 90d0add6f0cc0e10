import { createHash } from 'node:crypto';
import { OlmError, describeError } from '@olm/core';

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

/** One challenge of a `WWW-Authenticate` header: `Bearer realm="…",service="…",scope="…"`. */
export interface AuthChallenge {
  /** Lower case: `bearer`, `basic`. */
  readonly scheme: string;
  readonly parameters: Readonly<Record<string, string>>;
}

/**
 * Parses the first challenge of a `WWW-Authenticate` header (quoted values may hold commas and
 * escaped quotes). Undefined when the header is missing or has no scheme.
 */
export function parseAuthChallenge(header: string | null | undefined): AuthChallenge | undefined {
  if (!header) return undefined;
  const schemeMatch = /^\s*([A-Za-z][A-Za-z0-9._~+/-]*)\s*/.exec(header);
  if (!schemeMatch) return undefined;
  const parameters: Record<string, string> = {};
  let position = schemeMatch[0].length;
  const parameter = /\s*([A-Za-z0-9._~+/-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*(,|$)/y;
  for (;;) {
    parameter.lastIndex = position;
    const match = parameter.exec(header);
    if (!match) break;
    parameters[match[1]!.toLowerCase()] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
    position = parameter.lastIndex;
    // a second challenge (another scheme) starts here: keep to the first one
    if (match[4] === '' || /^\s*[A-Za-z][A-Za-z0-9._~+/-]*\s+[A-Za-z0-9._~+/-]+\s*=/.test(header.slice(position))) break;
  }
  return { scheme: schemeMatch[1]!.toLowerCase(), parameters };
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
}

export interface OciRegistryClient {
  /** Reads the image's manifest (choosing linux/amd64 from an index) and its layer blobs, verifying every digest. */
  pullImage(image: string, options?: { readonly signal?: AbortSignal }): Promise<PulledImage>;
}

interface ImageManifest {
  schemaVersion?: number;
  mediaType?: string;
  manifests?: Descriptor[];
  layers?: Descriptor[];
}

/**
 * A client of the OCI distribution API for anonymous pulls: manifests and blobs over http(s),
 * with the bearer-token flow public registries (Docker Hub, quay.io, ghcr.io) use for anonymous
 * access. Pull secrets are not read.
 */
export function createOciRegistryClient(options: OciRegistryClientOptions = {}): OciRegistryClient {
  const insecure = new Set(options.insecureRegistries ?? []);
  const timeoutMs = options.requestTimeoutMs ?? 60_000;
  const maxBlobBytes = options.maxBlobBytes ?? 64 * 1024 * 1024;
  const userAgent = options.userAgent ?? 'olm-catalog-operator';
  // Anonymous tokens by realm + service + scope; they are short-lived, so kept only until expiry.
  const tokens = new Map<string, { token: string; expiresAt: number }>();

  const schemeOf = (registry: string): 'http' | 'https' => {
    const host = registry.startsWith('[') ? registry.slice(0, registry.indexOf(']') + 1) : registry.split(':')[0]!;
    const local = host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
    return local || insecure.has(registry) || insecure.has(host) ? 'http' : 'https';
  };

  async function fetchToken(challenge: AuthChallenge, image: ImageReference, imageText: string, signal: AbortSignal): Promise<string> {
    const realm = challenge.parameters.realm;
    if (!realm) {
      throw new OlmError(BundleImageErrorCodes.unauthorized, `registry ${image.registry} asked for a bearer token without a realm while pulling ${imageText}; the registry's WWW-Authenticate header is malformed`);
    }
    const scope = challenge.parameters.scope ?? `repository:${image.repository}:pull`;
    const key = `${realm}|${challenge.parameters.service ?? ''}|${scope}`;
    const cached = tokens.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.token;
    const url = new URL(realm);
    if (challenge.parameters.service) url.searchParams.set('service', challenge.parameters.service);
    url.searchParams.set('scope', scope);
    const response = await send(url.toString(), { 'User-Agent': userAgent }, signal, `the token service ${url.origin} of ${image.registry}`);
    if (!response.ok) {
      throw new OlmError(
        BundleImageErrorCodes.unauthorized,
        `pulling ${imageText}: the token service ${url.origin}${url.pathname} refused an anonymous token for ${scope} (HTTP ${response.status}); the image is private: make it public or ship the bundle's manifests in the catalog (olm.bundle.object)`,
      );
    }
    const body = (await response.json().catch(() => ({}))) as { token?: string; access_token?: string; expires_in?: number };
    const token = body.token ?? body.access_token;
    if (!token) throw new OlmError(BundleImageErrorCodes.unauthorized, `pulling ${imageText}: the token service ${url.origin} answered without a token`);
    tokens.set(key, { token, expiresAt: Date.now() + Math.max(30, (body.expires_in ?? 60) - 10) * 1000 });
    return token;
  }

  async function send(url: string, headers: Record<string, string>, signal: AbortSignal, where: string): Promise<Response> {
    try {
      return await fetch(url, { headers, redirect: 'follow', signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
    } catch (error) {
      if (signal.aborted) throw error;
      const cause = (error as { cause?: unknown }).cause;
      const detail = cause ? describeError(cause) : describeError(error);
      throw new OlmError(
        BundleImageErrorCodes.unreachable,
        `cannot reach ${where} (${url}): ${detail}; check that the registry is up and reachable from the catalog operator` +
          (url.startsWith('https:') ? ', or list it in insecureRegistries if it serves plain http' : ''),
        { cause: error },
      );
    }
  }

  /** GET with anonymous bearer-token authentication when the registry asks for it. */
  async function get(image: ImageReference, imageText: string, path: string, accept: string | undefined, signal: AbortSignal): Promise<Response> {
    const url = `${schemeOf(image.registry)}://${image.registry}/v2/${image.repository}/${path}`;
    const headers: Record<string, string> = { 'User-Agent': userAgent, ...(accept ? { Accept: accept } : {}) };
    let response = await send(url, headers, signal, `registry ${image.registry}`);
    if (response.status === 401) {
      const challenge = parseAuthChallenge(response.headers.get('www-authenticate'));
      await response.body?.cancel();
      if (challenge?.scheme !== 'bearer') {
        throw new OlmError(
          BundleImageErrorCodes.unauthorized,
          `registry ${image.registry} requires credentials (${challenge ? `${challenge.scheme} authentication` : 'HTTP 401'}) to pull ${imageText}; pull secrets are not supported: make the image public or ship the bundle's manifests in the catalog (olm.bundle.object)`,
        );
      }
      const token = await fetchToken(challenge, image, imageText, signal);
      response = await send(url, { ...headers, Authorization: `Bearer ${token}` }, signal, `registry ${image.registry}`);
    }
    return response;
  }

  async function failure(response: Response, image: ImageReference, imageText: string, what: string): Promise<OlmError> {
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
        `not allowed to pull ${imageText}: ${answered} for ${what}; pull secrets are not supported: make the image public or ship the bundle's manifests in the catalog (olm.bundle.object)`,
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
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        total += chunk.byteLength;
        if (total > limit) throw tooLarge();
        chunks.push(Buffer.from(chunk));
      }
    }
    return Buffer.concat(chunks);
  }

  async function fetchManifest(image: ImageReference, imageText: string, reference: string, signal: AbortSignal) {
    const what = `manifest ${JSON.stringify(reference)} of repository ${image.repository}`;
    const response = await get(image, imageText, `manifests/${reference}`, manifestAccept, signal);
    if (!response.ok) throw await failure(response, image, imageText, what);
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
      const signal = pullOptions.signal ?? new AbortController().signal;
      const image = parseImageReference(imageText);
      let { manifest, mediaType, digest } = await fetchManifest(image, imageText, image.reference, signal);
      if (mediaType === MediaTypes.ociIndex || mediaType === MediaTypes.dockerManifestList || (manifest.manifests && !manifest.layers)) {
        const chosen = selectPlatformManifest(manifest.manifests ?? []);
        if (!chosen) throw new OlmError(BundleImageErrorCodes.unsupported, `the image index of ${imageText} lists no manifests`);
        ({ manifest, mediaType, digest } = await fetchManifest(image, imageText, chosen.digest, signal));
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
        const response = await get(image, imageText, `blobs/${layer.digest}`, undefined, signal);
        if (!response.ok) throw await failure(response, image, imageText, `blob ${layer.digest}`);
        const bytes = await readBody(response, maxBlobBytes, what);
        verifyDigest(layer.digest, bytes, what);
        layers.push({ digest: layer.digest, mediaType: layer.mediaType, bytes });
      }
      return { digest, layers };
    },
  };
}
