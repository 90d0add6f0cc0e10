import { goQuoteList } from '@olm/go-format';
import { randomUUID } from 'node:crypto';
import type { JsonObject, KubeObject } from '../kube-object.js';
import type { JwtSigner } from './jwt-signer.js';
import { serviceAccountGroups, serviceAccountUsername, withAuthenticatedGroup, type UserInfo } from './user-info.js';

/**
 * ServiceAccount tokens as kube-apiserver issues and checks them: bound tokens (TokenRequest, with an
 * expiry, audiences, and optionally a Pod or Secret they die with) and legacy tokens (the
 * `kubernetes.io/service-account-token` Secrets, no expiry, valid while their Secret is). Both name
 * the account's uid, so a token outlives neither its account nor a re-created account of that name.
 */
export const serviceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';
const legacyIssuer = 'kubernetes/serviceaccount';
/** What tokens for the API server itself are issued for (kube-apiserver's `--api-audiences` default). */
export const apiAudiences: readonly string[] = [serviceAccountIssuer];

/** kube-apiserver adds the token id to the user's extra (`authentication.kubernetes.io/credential-id`). */
const credentialIdKey = 'authentication.kubernetes.io/credential-id';

export interface BoundObject {
  readonly kind: 'Pod' | 'Secret';
  readonly name: string;
  readonly uid: string;
}

export interface IssuedToken {
  readonly token: string;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
}

export function issueBoundToken(
  signer: JwtSigner,
  serviceAccount: KubeObject,
  options: { audiences: readonly string[]; expirationSeconds: number; boundObject?: BoundObject; nowSeconds?: number },
): IssuedToken {
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const namespace = serviceAccount.metadata.namespace ?? '';
  const name = serviceAccount.metadata.name ?? '';
  const kubernetes: JsonObject = { namespace, serviceaccount: { name, uid: serviceAccount.metadata.uid ?? '' } };
  if (options.boundObject) kubernetes[options.boundObject.kind === 'Pod' ? 'pod' : 'secret'] = { name: options.boundObject.name, uid: options.boundObject.uid };
  const expiresAt = now + options.expirationSeconds;
  const token = signer.sign({
    aud: [...options.audiences],
    exp: expiresAt,
    iat: now,
    iss: serviceAccountIssuer,
    jti: randomUUID(),
    'kubernetes.io': kubernetes,
    nbf: now,
    sub: serviceAccountUsername(namespace, name),
  });
  return { token, expiresAt };
}

export function issueLegacyToken(signer: JwtSigner, serviceAccount: KubeObject, secretName: string): string {
  const namespace = serviceAccount.metadata.namespace ?? '';
  const name = serviceAccount.metadata.name ?? '';
  return signer.sign({
    iss: legacyIssuer,
    'kubernetes.io/serviceaccount/namespace': namespace,
    'kubernetes.io/serviceaccount/secret.name': secretName,
    'kubernetes.io/serviceaccount/service-account.name': name,
    'kubernetes.io/serviceaccount/service-account.uid': serviceAccount.metadata.uid ?? '',
    sub: serviceAccountUsername(namespace, name),
  });
}

/** Reads current objects (the store): `get('/serviceaccounts', namespace, name)`. */
export interface ObjectLookup {
  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined;
}

export type TokenValidation = { readonly user: UserInfo; readonly audiences: readonly string[] } | { readonly error: string };

/**
 * Checks the claims of a token the signer verified: issuer, times, audiences, and that the account
 * (and the Pod or Secret it is bound to) still exists with the uid the token names.
 */
export function validateServiceAccountToken(
  token: string,
  claims: JsonObject,
  objects: ObjectLookup,
  audiences: readonly string[],
  nowSeconds = Math.floor(Date.now() / 1000),
): TokenValidation {
  if (claims['iss'] === legacyIssuer) return validateLegacy(token, claims, objects, audiences);
  if (claims['iss'] !== serviceAccountIssuer) return { error: 'token issued by an unknown issuer' };
  const exp = claims['exp'];
  const nbf = claims['nbf'];
  if (typeof exp !== 'number' || exp <= nowSeconds) return { error: 'service account token has expired' };
  if (typeof nbf === 'number' && nbf > nowSeconds) return { error: 'service account token is not valid yet' };
  const tokenAudiences = Array.isArray(claims['aud']) ? claims['aud'].filter((entry): entry is string => typeof entry === 'string') : typeof claims['aud'] === 'string' ? [claims['aud']] : [];
  const matched = tokenAudiences.filter((audience) => audiences.includes(audience));
  if (matched.length === 0) return { error: `token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(audiences)}` };
  const kubernetes = claims['kubernetes.io'];
  const scope = typeof kubernetes === 'object' && kubernetes !== null && !Array.isArray(kubernetes) ? (kubernetes as JsonObject) : {};
  const namespace = typeof scope['namespace'] === 'string' ? scope['namespace'] : '';
  const account = reference(scope['serviceaccount']);
  if (namespace === '' || !account) return { error: 'service account token claims name no service account' };
  const serviceAccount = liveObject(objects, '/serviceaccounts', namespace, account);
  if (typeof serviceAccount === 'string') return { error: serviceAccount };
  const extra: Record<string, string[]> = {};
  if (typeof claims['jti'] === 'string') extra[credentialIdKey] = [`JTI=${claims['jti']}`];
  for (const [key, resource] of [
    ['pod', '/pods'],
    ['secret', '/secrets'],
  ] as const) {
    const bound = reference(scope[key]);
    if (!bound) continue;
    const object = liveObject(objects, resource, namespace, bound);
    if (typeof object === 'string') return { error: object };
    if (key === 'pod') {
      extra['authentication.kubernetes.io/pod-name'] = [bound.name];
      extra['authentication.kubernetes.io/pod-uid'] = [bound.uid];
    }
  }
  return { user: serviceAccountUser(serviceAccount, extra), audiences: matched };
}

function validateLegacy(token: string, claims: JsonObject, objects: ObjectLookup, audiences: readonly string[]): TokenValidation {
  const text = (key: string): string => (typeof claims[`kubernetes.io/serviceaccount/${key}`] === 'string' ? String(claims[`kubernetes.io/serviceaccount/${key}`]) : '');
  const namespace = text('namespace');
  const secretName = text('secret.name');
  const serviceAccount = liveObject(objects, '/serviceaccounts', namespace, { name: text('service-account.name'), uid: text('service-account.uid') });
  if (typeof serviceAccount === 'string') return { error: serviceAccount };
  const secret = objects.get('/secrets', namespace, secretName);
  if (!secret || secret.metadata.deletionTimestamp !== undefined) return { error: `secrets "${secretName}" not found` };
  const data = secret['data'];
  const stored = typeof data === 'object' && data !== null ? (data as JsonObject)['token'] : undefined;
  // A Secret whose token was replaced or removed invalidates the old token.
  if (typeof stored !== 'string' || Buffer.from(stored, 'base64').toString('utf8') !== token) return { error: 'token has been invalidated' };
  // Legacy tokens carry no audience: they are good for the API server's own audiences only.
  const matched = audiences.filter((audience) => apiAudiences.includes(audience));
  if (matched.length === 0) return { error: `legacy service account tokens are valid for this API server only (audiences ${JSON.stringify(apiAudiences)})` };
  return { user: serviceAccountUser(serviceAccount, {}), audiences: matched };
}

function serviceAccountUser(serviceAccount: KubeObject, extra: Record<string, string[]>): UserInfo {
  const namespace = serviceAccount.metadata.namespace ?? '';
  return {
    username: serviceAccountUsername(namespace, serviceAccount.metadata.name ?? ''),
    uid: serviceAccount.metadata.uid ?? '',
    groups: withAuthenticatedGroup(serviceAccountGroups(namespace)),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

function reference(value: unknown): { name: string; uid: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, uid } = value as JsonObject;
  return typeof name === 'string' && name !== '' ? { name, uid: typeof uid === 'string' ? uid : '' } : undefined;
}

/** The object if it exists under that uid and is not being deleted, else why the token is invalid. */
function liveObject(objects: ObjectLookup, resource: string, namespace: string, wanted: { name: string; uid: string }): KubeObject | string {
  const plural = resource.slice(1);
  const object = objects.get(resource, namespace, wanted.name);
  if (!object) return `${plural} "${wanted.name}" not found`;
  if (wanted.uid !== '' && object.metadata.uid !== wanted.uid) return `${plural} ${namespace}/${wanted.name} has uid ${object.metadata.uid ?? ''}, not ${wanted.uid} the token was issued for (it was deleted and made again)`;
  if (object.metadata.deletionTimestamp !== undefined) return `${plural} ${namespace}/${wanted.name} is being deleted`;
  return object;
}
