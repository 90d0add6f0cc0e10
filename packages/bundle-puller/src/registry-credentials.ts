import type { ImageReference } from './image-reference.js';

/** One registry login, as a pull secret holds it. */
export interface RegistryCredential {
  readonly username?: string;
  readonly password?: string;
  /** A refresh token (`identitytoken`), exchanged at the registry's token service. */
  readonly identityToken?: string;
  /** A bearer token (`registrytoken`) sent to the registry as it is. */
  readonly registryToken?: string;
  /** Where it came from, for messages: `secret <namespace>/<name>`. */
  readonly source: string;
}

/** A credential and the registry key it was stored under, parsed for matching. */
export interface KeyringEntry {
  /** The key as written in the secret (`registry.example.com`, `https://index.docker.io/v1/`, `*.example.com/team`). */
  readonly key: string;
  readonly host: string;
  readonly port: string;
  readonly path: string;
  readonly credential: RegistryCredential;
}

export const pullSecretTypes = {
  dockerConfigJson: 'kubernetes.io/dockerconfigjson',
  dockerCfg: 'kubernetes.io/dockercfg',
} as const;

interface SecretLike {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly type?: string;
  readonly data?: Readonly<Record<string, string>>;
}

interface AuthEntry {
  auth?: unknown;
  username?: unknown;
  password?: unknown;
  identitytoken?: unknown;
  registrytoken?: unknown;
}

const dockerHubAliases = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);
const canonicalHost = (host: string) => (dockerHubAliases.has(host) ? 'docker.io' : host);

/** `host`, `port` and `path` of a registry key or image location (scheme and `/v1/`, `/v2/` suffixes dropped). */
function parseLocation(text: string): { host: string; port: string; path: string } {
  let rest = text.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  rest = rest.replace(/\/+$/, '').replace(/\/v[12]$/, '');
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash + 1);
  const bracket = authority.startsWith('[') ? authority.indexOf(']') : -1;
  const colon = authority.lastIndexOf(':');
  const hasPort = colon > bracket && colon !== -1;
  return { host: canonicalHost((hasPort ? authority.slice(0, colon) : authority).toLowerCase()), port: hasPort ? authority.slice(colon + 1) : '', path };
}

/**
 * The credentials of a `kubernetes.io/dockerconfigjson` (`{"auths": {…}}` in `.dockerconfigjson`) or
 * legacy `kubernetes.io/dockercfg` (the `auths` map itself in `.dockercfg`) Secret. A Secret of
 * another type, or one that cannot be read, gives no entries and a problem saying why.
 */
export function keyringFromSecret(secret: SecretLike): { entries: KeyringEntry[]; problem?: string } {
  const where = `secret ${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? ''}`;
  const field = secret.type === pullSecretTypes.dockerConfigJson ? '.dockerconfigjson' : secret.type === pullSecretTypes.dockerCfg ? '.dockercfg' : undefined;
  if (!field) {
    return { entries: [], problem: `${where} has type ${JSON.stringify(secret.type ?? 'Opaque')}, not ${pullSecretTypes.dockerConfigJson} or ${pullSecretTypes.dockerCfg}: it holds no registry credentials` };
  }
  const encoded = secret.data?.[field];
  if (!encoded) return { entries: [], problem: `${where} has no ${field} key` };
  let auths: Record<string, AuthEntry>;
  try {
    const parsed = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as { auths?: Record<string, AuthEntry> } & Record<string, AuthEntry>;
    auths = (field === '.dockerconfigjson' ? parsed.auths : parsed) ?? {};
    if (typeof auths !== 'object' || auths === null || Array.isArray(auths)) throw new Error('"auths" is not an object');
  } catch (error) {
    return { entries: [], problem: `${where}: ${field} is not a Docker config (${(error as Error).message}); recreate it with kubectl create secret docker-registry` };
  }
  const entries: KeyringEntry[] = [];
  for (const [key, entry] of Object.entries(auths)) {
    if (typeof entry !== 'object' || entry === null) continue;
    const credential = credentialOf(entry, where);
    if (credential) entries.push({ key, ...parseLocation(key), credential });
  }
  return { entries };
}

function credentialOf(entry: AuthEntry, source: string): RegistryCredential | undefined {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  let username = text(entry.username);
  let password = text(entry.password);
  const auth = text(entry.auth);
  if (auth && (username === undefined || password === undefined)) {
    const decoded = Buffer.from(auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon !== -1) {
      username = decoded.slice(0, colon);
      password = decoded.slice(colon + 1);
    }
  }
  const identityToken = text(entry.identitytoken);
  const registryToken = text(entry.registrytoken);
  if (!identityToken && !registryToken && (username === undefined || password === undefined)) return undefined;
  return {
    source,
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(identityToken ? { identityToken } : {}),
    ...(registryToken ? { registryToken } : {}),
  };
}

/** A key's host matches the image's host label by label; a label may be a glob (`*.example.com`). */
function hostMatches(pattern: string, host: string): boolean {
  const patternLabels = pattern.split('.');
  const hostLabels = host.split('.');
  if (patternLabels.length !== hostLabels.length) return false;
  return patternLabels.every((label, index) => new RegExp(`^${label.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^.]*')}$`).test(hostLabels[index]!));
}

/**
 * The entries that apply to an image, most specific first, as the kubelet's keyring matches them:
 * the host (globs per label), the port exactly, and the key's path as a prefix of the repository.
 */
export function credentialsForImage(entries: readonly KeyringEntry[], image: Pick<ImageReference, 'registry' | 'repository'>): RegistryCredential[] {
  const target = parseLocation(`${image.registry}/${image.repository}`);
  return entries
    .filter(
      (entry) =>
        hostMatches(entry.host, target.host) &&
        entry.port === target.port &&
        (entry.path === '' || target.path === entry.path || target.path.startsWith(`${entry.path}/`)),
    )
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => b.entry.path.length - a.entry.path.length || Number(a.entry.host.includes('*')) - Number(b.entry.host.includes('*')) || a.index - b.index)
    .map(({ entry }) => entry.credential);
}
