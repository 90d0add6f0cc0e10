import { StatusError, badRequest, conflict, invalid, notFound } from '../errors.js';
import { isJsonObject, nowTimestamp, type JsonObject } from '../kube-object.js';
import { authenticationGroup } from './auth-api-types.js';
import type { Authenticator } from './authenticator.js';
import type { JwtSigner } from './jwt-signer.js';
import { apiAudiences, issueBoundToken, type BoundObject, type ObjectLookup } from './service-account-tokens.js';
import type { UserInfo } from './user-info.js';
import { reviewBody } from './access-review-apis.js';

/**
 * authentication.k8s.io/v1: TokenRequest (`POST …/serviceaccounts/<name>/token`, `kubectl create
 * token`), TokenReview (who a token is) and SelfSubjectReview (`kubectl auth whoami`).
 */
const apiVersion = `${authenticationGroup}/v1`;
/** kube-apiserver's defaults and bounds for `spec.expirationSeconds`. */
const defaultExpirationSeconds = 3600;
const minimumExpirationSeconds = 600;
const maximumExpirationSeconds = 2 ** 32;

export function tokenRequest(body: unknown, namespace: string, serviceAccountName: string, objects: ObjectLookup, signer: JwtSigner): JsonObject {
  const request = reviewBody(body, 'TokenRequest');
  const spec = isJsonObject(request['spec']) ? { ...request['spec'] } : {};
  const expiration = spec['expirationSeconds'] ?? defaultExpirationSeconds;
  const invalidExpiration = (detail: string): StatusError =>
    invalid({ group: authenticationGroup, plural: 'tokenrequests' }, `TokenRequest.${authenticationGroup}`, request.metadata.name ?? '', [
      { field: 'spec.expirationSeconds', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(expiration)}: ${detail}` },
    ]);
  if (typeof expiration !== 'number' || !Number.isInteger(expiration)) throw invalidExpiration('must be a whole number of seconds');
  if (expiration < minimumExpirationSeconds) throw invalidExpiration('may not specify a duration less than 10 minutes');
  if (expiration > maximumExpirationSeconds) throw invalidExpiration('may not specify a duration larger than 2^32 seconds');
  const serviceAccount = objects.get('/serviceaccounts', namespace, serviceAccountName);
  if (!serviceAccount) throw notFound({ group: '', plural: 'serviceaccounts' }, serviceAccountName);
  const audiences = Array.isArray(spec['audiences']) && spec['audiences'].length > 0 ? spec['audiences'].filter((entry): entry is string => typeof entry === 'string') : [...apiAudiences];
  const boundObject = isJsonObject(spec['boundObjectRef']) ? boundObjectOf(spec['boundObjectRef'], namespace, serviceAccountName, objects) : undefined;
  const issued = issueBoundToken(signer, serviceAccount, { audiences, expirationSeconds: expiration, ...(boundObject ? { boundObject } : {}) });
  return {
    kind: 'TokenRequest',
    apiVersion,
    metadata: { ...request.metadata, name: serviceAccountName, namespace },
    spec: { ...spec, audiences, expirationSeconds: expiration, boundObjectRef: spec['boundObjectRef'] ?? null },
    status: { token: issued.token, expirationTimestamp: nowTimestamp(new Date(issued.expiresAt * 1000)) },
  };
}

/** The Pod or Secret a token dies with; a Pod must run as the account the token is for. */
function boundObjectOf(reference: JsonObject, namespace: string, serviceAccountName: string, objects: ObjectLookup): BoundObject {
  const kind = reference['kind'];
  const groupVersion = typeof reference['apiVersion'] === 'string' ? reference['apiVersion'] : '';
  const name = typeof reference['name'] === 'string' ? reference['name'] : '';
  if ((kind !== 'Pod' && kind !== 'Secret') || (groupVersion !== '' && groupVersion !== 'v1')) {
    throw badRequest(`cannot bind token to object of type ${groupVersion === '' ? '' : `${groupVersion}, `}Kind=${String(kind ?? '')}: only v1 Pods and Secrets can be bound`);
  }
  const plural = kind === 'Pod' ? 'pods' : 'secrets';
  const object = objects.get(`/${plural}`, namespace, name);
  if (!object) throw notFound({ group: '', plural }, name);
  if (kind === 'Pod') {
    const spec = isJsonObject(object['spec']) ? object['spec'] : {};
    const runsAs = typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '' ? spec['serviceAccountName'] : 'default';
    if (runsAs !== serviceAccountName) throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(serviceAccountName)} to pod running with different serviceaccount name.`);
  }
  const uid = object.metadata.uid ?? '';
  const wanted = typeof reference['uid'] === 'string' ? reference['uid'] : '';
  if (wanted !== '' && wanted !== uid) {
    throw conflict({ group: '', plural: kind }, name, `the UID in the bound object reference (${wanted}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  return { kind, name, uid };
}

export function tokenReview(body: unknown, authenticator: Authenticator): JsonObject {
  const review = reviewBody(body, 'TokenReview');
  const spec = isJsonObject(review['spec']) ? review['spec'] : {};
  const token = typeof spec['token'] === 'string' ? spec['token'] : '';
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const wanted = Array.isArray(spec['audiences']) && spec['audiences'].length > 0 ? spec['audiences'].filter((entry): entry is string => typeof entry === 'string') : [...apiAudiences];
  const result = authenticator.authenticateToken(token, wanted);
  const status: JsonObject =
    'user' in result ? { authenticated: true, user: userInfoJson(result.user), audiences: [...result.audiences] } : { user: {}, error: `[invalid bearer token, ${result.error}]` };
  return { kind: 'TokenReview', apiVersion, metadata: review.metadata, spec, status };
}

export function selfSubjectReview(body: unknown, user: UserInfo): JsonObject {
  const review = reviewBody(body ?? {}, 'SelfSubjectReview');
  return { kind: 'SelfSubjectReview', apiVersion, metadata: review.metadata, status: { userInfo: userInfoJson(user) } };
}

function userInfoJson(user: UserInfo): JsonObject {
  return {
    username: user.username,
    ...(user.uid !== undefined && user.uid !== '' ? { uid: user.uid } : {}),
    groups: [...user.groups],
    ...(user.extra !== undefined ? { extra: Object.fromEntries(Object.entries(user.extra).map(([key, values]) => [key, [...values]])) } : {}),
  };
}
