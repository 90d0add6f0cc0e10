import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { RequestHeaderConfig } from './request-header-config.js';
import { authenticated, type RequestUser } from './user.js';

const clientAuthUsage = '1.3.6.1.5.5.7.3.2';

/** Whether the connection presented a client certificate signed by one of the CAs, valid now, for client authentication, with an accepted name. */
function trustedFrontProxy(request: IncomingMessage, config: RequestHeaderConfig): boolean {
  const socket = request.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerX509Certificate !== 'function') return false;
  const leaf = socket.getPeerX509Certificate();
  if (!leaf) return false;
  const now = Date.now();
  if (now < Date.parse(leaf.validFrom) || now > Date.parse(leaf.validTo)) return false;
  if (leaf.keyUsage !== undefined && !leaf.keyUsage.includes(clientAuthUsage)) return false;
  if (!config.certificateAuthorities.some((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey))) return false;
  if (config.allowedNames.length === 0) return true;
  const commonName = /(?:^|\n)CN=([^\n]*)/.exec(leaf.subject)?.[1];
  return commonName !== undefined && config.allowedNames.includes(commonName);
}

function headerValues(request: IncomingMessage, name: string): string[] {
  return (request.headersDistinct[name] ?? []).filter((value) => value !== '');
}

/** `X-Remote-Extra-Foo%2fbar` → `foo/bar`, as kube unescapes extra keys. */
function extraKey(header: string, prefix: string): string {
  const raw = header.slice(prefix.length);
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/**
 * The user a trusted front proxy (the aggregator) asserts in request headers, as kube's
 * request-header authenticator reads them; undefined when the connection is not from a trusted
 * front proxy or names no user (then other credentials are tried). The headers are removed from the
 * request either way, so that nothing further on trusts a forged one.
 */
export function authenticateRequestHeader(request: IncomingMessage, config: RequestHeaderConfig | undefined): RequestUser | undefined {
  const user = config && trustedFrontProxy(request, config) ? userOf(request, config) : undefined;
  if (config) {
    const names = [...config.usernameHeaders, ...config.uidHeaders, ...config.groupHeaders];
    for (const header of Object.keys(request.headers)) {
      if (names.includes(header) || config.extraHeaderPrefixes.some((prefix) => header.startsWith(prefix))) delete request.headers[header];
    }
  }
  return user;
}

function userOf(request: IncomingMessage, config: RequestHeaderConfig): RequestUser | undefined {
  const username = config.usernameHeaders.map((header) => headerValues(request, header)[0]).find((value) => value !== undefined);
  if (username === undefined) return undefined;
  const uid = config.uidHeaders.map((header) => headerValues(request, header)[0]).find((value) => value !== undefined);
  const groups = config.groupHeaders.flatMap((header) => headerValues(request, header));
  const extra: Record<string, string[]> = {};
  for (const header of Object.keys(request.headersDistinct)) {
    const prefix = config.extraHeaderPrefixes.find((candidate) => header.startsWith(candidate));
    if (prefix === undefined) continue;
    const key = extraKey(header, prefix);
    extra[key] = [...(extra[key] ?? []), ...headerValues(request, header)];
  }
  return authenticated({ username, ...(uid !== undefined ? { uid } : {}), groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) });
}
