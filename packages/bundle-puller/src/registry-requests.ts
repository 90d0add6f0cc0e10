import { OlmError, describeError } from '@olm/core';
import { EnvHttpProxyAgent, fetch as proxiedFetch, type Dispatcher, type Response } from 'undici';
import { BundleImageErrorCodes } from './bundle-image-errors.js';
import type { ImageReference } from './image-reference.js';
import { parseAuthChallenge, pullSecretHint, RegistryAuthenticator, type Send } from './registry-auth.js';
import type { RegistryCredential } from './registry-credentials.js';

/** One pull: the image, the credentials it may use, and the Authorization that worked so far. */
export interface PullSession {
  readonly image: ImageReference;
  readonly imageText: string;
  readonly credentials: readonly RegistryCredential[];
  readonly signal: AbortSignal;
  authorization?: string;
  /** Whose credentials the authorization carries (for messages). */
  authorizedBy?: string;
}

export interface RegistryRequestOptions {
  /** Registries reached over plain http (`host` or `host:port`), besides the loopback ones. */
  readonly insecureRegistries?: readonly string[];
  readonly timeoutMs: number;
  readonly userAgent: string;
  readonly proxy?: { readonly httpProxy?: string; readonly httpsProxy?: string; readonly noProxy?: string };
}

/** A request other than a plain GET (a push): method, headers and body. */
export interface RegistryRequestInit {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The bytes, or a function giving them as a stream (called again for each attempt a challenge causes). */
  readonly body?: Uint8Array | (() => AsyncIterable<Uint8Array>);
}

/** Requests to one image's registry within a pull, with their errors worded for the user. */
export interface RegistryRequests {
  /** GET `/v2/<repository>/<path>`, answering a `401` challenge with the session's credentials. */
  get(session: PullSession, path: string, accept: string | undefined): Promise<Response>;
  /**
   * Any request to the image's registry: `path` below `/v2/<repository>/`, or an upload `Location`
   * the registry answered (absolute, or from the registry's root), with the same challenges answered.
   */
  send(session: PullSession, path: string, init: RegistryRequestInit): Promise<Response>;
  /** The error of a response that is not OK: not found, not allowed, or another registry error. */
  failure(response: Response, session: PullSession, what: string): Promise<OlmError>;
  /** The body, refused past `limit` bytes (declared or read). */
  readBody(response: Response, limit: number, what: string): Promise<Buffer>;
}

function schemeOf(registry: string, insecure: ReadonlySet<string>): 'http' | 'https' {
  const host = registry.startsWith('[') ? registry.slice(0, registry.indexOf(']') + 1) : registry.split(':')[0]!;
  const local = host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
  return local || insecure.has(registry) || insecure.has(host) ? 'http' : 'https';
}

/** The registry's `errors[]` (code: message), or the start of a body that is not JSON. */
function errorDetail(text: string): string {
  try {
    const errors = (JSON.parse(text) as { errors?: Array<{ code?: string; message?: string }> }).errors ?? [];
    return errors.map((error) => [error.code, error.message].filter(Boolean).join(': ')).join('; ');
  } catch {
    return text.slice(0, 200);
  }
}

/** Sends one request through `dispatcher` within `timeoutMs`; a network failure says which registry could not be reached and what to check. */
function sender(dispatcher: Dispatcher, timeoutMs: number): Send {
  return async (url, init, where, signal) => {
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
  };
}

/** The error of a response that is not OK, worded for the user (see `RegistryRequests.failure`). */
async function responseFailure(response: Response, session: PullSession, what: string): Promise<OlmError> {
  const { image, imageText } = session;
  const detail = errorDetail(await response.text().catch(() => ''));
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

/** The body, refused past `limit` bytes, declared or read. */
async function readLimitedBody(response: Response, limit: number, what: string): Promise<Buffer> {
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

/** A request's body as fetch takes it: bytes, or a fresh stream (sent chunked, `duplex: 'half'`). */
function bodyOf(init: RegistryRequestInit): { body?: Uint8Array | AsyncIterable<Uint8Array>; duplex?: 'half' } {
  if (init.body === undefined) return {};
  return typeof init.body === 'function' ? { body: init.body(), duplex: 'half' } : { body: init.body };
}

/**
 * Sends registry requests through the proxies of the environment (`HTTP_PROXY`, `HTTPS_PROXY`,
 * `NO_PROXY`, unless `proxy` says otherwise), each within `timeoutMs`.
 */
export function createRegistryRequests(options: RegistryRequestOptions): RegistryRequests {
  const insecure = new Set(options.insecureRegistries ?? []);
  const { userAgent } = options;
  // undici's agent reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY (a direct connection when none is set).
  const dispatcher = new EnvHttpProxyAgent({
    ...(options.proxy?.httpProxy !== undefined ? { httpProxy: options.proxy.httpProxy } : {}),
    ...(options.proxy?.httpsProxy !== undefined ? { httpsProxy: options.proxy.httpsProxy } : {}),
    ...(options.proxy?.noProxy !== undefined ? { noProxy: options.proxy.noProxy } : {}),
  });

  const send = sender(dispatcher, options.timeoutMs);
  // One authenticator, so its tokens are reused across pulls until they expire.
  const authenticator = new RegistryAuthenticator(send, userAgent);

  /**
   * A request, answering a `401` challenge with each candidate credential in turn (anonymously when there
   * are none); the first that the registry accepts is used for the rest of the pull.
   */
  async function request(session: PullSession, path: string, init: RegistryRequestInit): Promise<Response> {
    const { image, signal } = session;
    const origin = `${schemeOf(image.registry, insecure)}://${image.registry}`;
    const url = /^https?:\/\//.test(path) ? path : path.startsWith('/') ? `${origin}${path}` : `${origin}/v2/${image.repository}/${path}`;
    const headers: Record<string, string> = { 'User-Agent': userAgent, ...init.headers };
    const where = `registry ${image.registry}`;
    const method = init.method ?? 'GET';
    const authorizedSend = (authorization: string | undefined) =>
      send(url, { method, headers: { ...headers, ...(authorization ? { Authorization: authorization } : {}) }, ...bodyOf(init) }, where, signal);
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

  const get = (session: PullSession, path: string, accept: string | undefined) => request(session, path, accept ? { headers: { Accept: accept } } : {});
  return { get, send: request, failure: responseFailure, readBody: readLimitedBody };
}
