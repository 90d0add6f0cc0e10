import { StatusError } from '../errors.js';
import { forbiddenError, type Authorizer } from './authorizer.js';
import type { RequestAttributes } from './request-info.js';
import { anonymousUser, parseServiceAccountUsername, serviceAccountGroups, serviceAccountUsername, systemAuthenticated, systemUnauthenticated, type UserInfo } from './user-info.js';

/**
 * kube-apiserver's impersonation filter: `Impersonate-User`, `Impersonate-Group` (repeatable),
 * `Impersonate-Uid` and `Impersonate-Extra-<key>` make the request act as someone else, provided
 * the requester may `impersonate` each: `users`, `groups`, `serviceaccounts` (name and namespace of
 * a `system:serviceaccount:<ns>:<name>` user), `uids` and `userextras/<key>` (the last two in
 * authentication.k8s.io). The first refusal is the 403, worded as kube-apiserver's.
 */
const extraPrefix = 'impersonate-extra-';

/**
 * The user the request acts as: the requester, or whom the headers name. `headers` is Node's
 * `headersDistinct` (lower-case names, every value of a repeated header apart).
 */
export function impersonatedUser(headers: Readonly<Record<string, readonly string[] | undefined>>, requester: UserInfo, authorizer: Authorizer): UserInfo {
  const requestedUser = headers['impersonate-user']?.[0] ?? '';
  const requestedGroups = (headers['impersonate-group'] ?? []).filter((group) => group !== '');
  const requestedUid = headers['impersonate-uid']?.[0] ?? '';
  const extras = new Map<string, string[]>();
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(extraPrefix) || values === undefined) continue;
    const key = unescapeExtraKey(header.slice(extraPrefix.length));
    extras.set(key, [...(extras.get(key) ?? []), ...values]);
  }
  if (requestedUser === '' && requestedGroups.length === 0 && requestedUid === '' && extras.size === 0) return requester;
  if (requestedUser === '') {
    throw new StatusError(
      400,
      'BadRequest',
      'impersonation requested groups, a uid or extra fields without a user: send Impersonate-User too (kubectl: --as together with --as-group or --as-uid)',
    );
  }

  const check = (attributes: Omit<RequestAttributes, 'verb' | 'isResourceRequest' | 'path' | 'apiVersion' | 'subresource'> & { subresource?: string }): void => {
    const request: RequestAttributes = { verb: 'impersonate', isResourceRequest: true, path: '', apiVersion: '', subresource: '', ...attributes };
    const decision = authorizer.authorize(requester, request);
    if (!decision.allowed) throw forbiddenError(requester, request, decision.reason);
  };

  let username: string;
  let groups: string[] = [];
  const account = parseServiceAccountUsername(requestedUser);
  if (account) {
    check({ apiGroup: '', resource: 'serviceaccounts', namespace: account.namespace, name: account.name });
    username = serviceAccountUsername(account.namespace, account.name);
    if (requestedGroups.length === 0) groups = serviceAccountGroups(account.namespace);
  } else {
    check({ apiGroup: '', resource: 'users', namespace: '', name: requestedUser });
    username = requestedUser;
  }
  for (const group of requestedGroups) {
    check({ apiGroup: '', resource: 'groups', namespace: '', name: group });
    groups.push(group);
  }
  const extra: Record<string, string[]> = {};
  for (const [key, values] of extras) {
    for (const value of values) check({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, namespace: '', name: value });
    extra[key] = values;
  }
  if (requestedUid !== '') check({ apiGroup: 'authentication.k8s.io', resource: 'uids', namespace: '', name: requestedUid });

  // As kube-apiserver: the impersonated user is authenticated (anonymous: unauthenticated) unless a group says otherwise.
  if (username !== anonymousUser) {
    if (!groups.includes(systemAuthenticated) && !groups.includes(systemUnauthenticated)) groups.push(systemAuthenticated);
  } else if (!groups.includes(systemUnauthenticated)) groups.push(systemUnauthenticated);
  return {
    username,
    ...(requestedUid !== '' ? { uid: requestedUid } : {}),
    groups,
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/** Extra keys are percent-encoded in header names (`Impersonate-Extra-example.org%2fscope`). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
