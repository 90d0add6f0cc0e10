import { OlmError } from '@olm/core';
import type { Response } from 'undici';
import type { RegistryCredential } from './registry-credentials.js';

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

/** How a request is sent (the registry client's, with its timeout, proxy and error wording). */
export type Send = (url: string, init: { method?: string; headers: Record<string, string>; body?: string | Uint8Array | AsyncIterable<Uint8Array>; duplex?: 'half' }, where: string, signal: AbortSignal) => Promise<Response>;

export interface ChallengeContext {
  readonly registry: string;
  readonly repository: string;
  /** The image as written, for messages. */
  readonly imageText: string;
  /** Candidates, most specific first; empty means anonymous. */
  readonly credentials: readonly RegistryCredential[];
  readonly signal: AbortSignal;
}

/** What to tell a user whose pull needs credentials it does not have. */
export const pullSecretHint = (registry: string) =>
  `create a kubernetes.io/dockerconfigjson Secret with credentials for ${registry} in the CatalogSource's namespace and list it in the CatalogSource's spec.secrets`;

const basicHeader = (credential: RegistryCredential) => `Basic ${Buffer.from(`${credential.username ?? ''}:${credential.password ?? ''}`).toString('base64')}`;

/**
 * Answers registry challenges the way docker/distribution clients do: `Basic` with a pull secret's
 * username and password; `Bearer` with a token from the challenge's realm (`GET ?service=&scope=`,
 * with Basic credentials when there are some, anonymous otherwise; a refresh token
 * (`identitytoken`) is exchanged with the OAuth2 `POST`; a `registrytoken` is the token itself).
 * Tokens are kept until they expire.
 */
export class RegistryAuthenticator {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(
    private readonly send: Send,
    private readonly userAgent: string,
  ) {}

  /**
   * The Authorization headers to try for a challenge, one per candidate credential (anonymous when
   * there are none), each with the credential it uses. Failures to get one are collected in `refused`.
   */
  async *authorizations(challenge: AuthChallenge | undefined, context: ChallengeContext, refused: string[]): AsyncGenerator<{ header: string; credential?: RegistryCredential }> {
    const scheme = challenge?.scheme;
    if (scheme !== 'basic' && scheme !== 'bearer') {
      throw new OlmError(
        'OLM_BUNDLE_IMAGE_UNAUTHORIZED',
        `registry ${context.registry} answered HTTP 401 to a pull of ${context.imageText} ${challenge ? `with an unsupported ${challenge.scheme} challenge` : 'without a WWW-Authenticate challenge'}; only Basic and Bearer authentication are supported`,
      );
    }
    if (scheme === 'basic') {
      if (context.credentials.length === 0) {
        throw new OlmError(
          'OLM_BUNDLE_IMAGE_UNAUTHORIZED',
          `registry ${context.registry} requires credentials (basic authentication) to pull ${context.imageText} and no pull secret has credentials for it; ${pullSecretHint(context.registry)}`,
        );
      }
      for (const credential of context.credentials) {
        if (credential.username === undefined) {
          refused.push(`${credential.source} has only a token, and the registry asks for a username and password`);
          continue;
        }
        yield { header: basicHeader(credential), credential };
      }
      return;
    }
    if (context.credentials.length === 0) {
      yield { header: `Bearer ${await this.token(challenge!, context, undefined)}` };
      return;
    }
    for (const credential of context.credentials) {
      if (credential.registryToken) {
        yield { header: `Bearer ${credential.registryToken}`, credential };
        continue;
      }
      let token: string;
      try {
        token = await this.token(challenge!, context, credential);
      } catch (error) {
        refused.push((error as Error).message);
        continue;
      }
      yield { header: `Bearer ${token}`, credential };
    }
  }

  private async token(challenge: AuthChallenge, context: ChallengeContext, credential: RegistryCredential | undefined): Promise<string> {
    const realm = challenge.parameters.realm;
    if (!realm) {
      throw new OlmError(
        'OLM_BUNDLE_IMAGE_UNAUTHORIZED',
        `registry ${context.registry} asked for a bearer token without a realm while pulling ${context.imageText}; the registry's WWW-Authenticate header is malformed`,
      );
    }
    const service = challenge.parameters.service;
    const scope = challenge.parameters.scope ?? `repository:${context.repository}:pull`;
    const who = credential ? `${credential.source}|${credential.username ?? ''}|${credential.identityToken ? 'refresh' : 'basic'}` : 'anonymous';
    const key = `${realm}|${service ?? ''}|${scope}|${who}`;
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.token;
    const url = new URL(realm);
    const headers: Record<string, string> = { 'User-Agent': this.userAgent };
    let response: Response;
    const where = `the token service ${url.origin} of ${context.registry}`;
    if (credential?.identityToken) {
      // OAuth2 refresh-token grant, as docker clients exchange an identity token
      const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: credential.identityToken, client_id: this.userAgent, scope, ...(service ? { service } : {}) });
      response = await this.send(url.toString(), { method: 'POST', headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString() }, where, context.signal);
    } else {
      if (service) url.searchParams.set('service', service);
      url.searchParams.set('scope', scope);
      if (credential) headers.Authorization = basicHeader(credential);
      response = await this.send(url.toString(), { headers }, where, context.signal);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new OlmError(
        'OLM_BUNDLE_IMAGE_UNAUTHORIZED',
        credential
          ? `the token service ${url.origin}${url.pathname} refused the credentials of ${credential.source} for ${scope} (HTTP ${response.status})`
          : `pulling ${context.imageText}: the token service ${url.origin}${url.pathname} refused an anonymous token for ${scope} (HTTP ${response.status}); the image is private: ${pullSecretHint(context.registry)}`,
      );
    }
    const body = (await response.json().catch(() => ({}))) as { token?: string; access_token?: string; expires_in?: number };
    const token = body.token ?? body.access_token;
    if (!token) throw new OlmError('OLM_BUNDLE_IMAGE_UNAUTHORIZED', `pulling ${context.imageText}: the token service ${url.origin} answered without a token`);
    this.tokens.set(key, { token, expiresAt: Date.now() + Math.max(30, (body.expires_in ?? 60) - 10) * 1000 });
    return token;
  }
}
