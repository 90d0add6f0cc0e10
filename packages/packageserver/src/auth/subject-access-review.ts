import type { KubeClient } from '@olm/core';
import { goQuote } from '@olm/go-format';
import { StatusError } from '../status-error.js';
import type { RequestAttributes } from './request-attributes.js';
import type { ReviewCache } from './review-cache.js';
import type { RequestUser } from './user.js';

export interface AccessDecision {
  readonly allowed: boolean;
  readonly reason: string;
}

/**
 * Asks the API server whether the user may do what the request asks (a SubjectAccessReview), as
 * k8s.io/apiserver's delegated authorizer does; decisions, allowed and denied, are cached.
 */
export function reviewAccess(client: KubeClient, cache: ReviewCache<AccessDecision>, user: RequestUser, attributes: RequestAttributes, timeoutMs: number): Promise<AccessDecision> {
  const spec = {
    user: user.username,
    ...(user.uid !== undefined ? { uid: user.uid } : {}),
    groups: user.groups,
    ...(user.extra !== undefined ? { extra: user.extra } : {}),
    ...(attributes.resourceRequest
      ? {
          resourceAttributes: {
            namespace: attributes.namespace,
            verb: attributes.verb,
            group: attributes.group,
            version: attributes.version,
            resource: attributes.resource,
            subresource: attributes.subresource,
            name: attributes.name,
          },
        }
      : { nonResourceAttributes: { path: attributes.path, verb: attributes.verb } }),
  };
  return cache.get(JSON.stringify(spec), async () => {
    const review = (await client.request({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec },
      signal: AbortSignal.timeout(timeoutMs),
    })) as { status?: { allowed?: boolean; reason?: string; evaluationError?: string } };
    return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
  });
}

/**
 * kube's 403 for a refused request, word for word: `packagemanifests.packages.operators.coreos.com is
 * forbidden: User "u" cannot list resource "packagemanifests" in API group "…" in the namespace "ns"`,
 * or `forbidden: User "u" cannot get path "/apis"`, then `: <reason>` when the authorizer gave one.
 */
export function forbidden(user: RequestUser, attributes: RequestAttributes, reason: string): StatusError {
  const suffix = reason !== '' ? `: ${reason}` : '';
  if (!attributes.resourceRequest) {
    return new StatusError(403, 'Forbidden', `forbidden: User ${goQuote(user.username)} cannot ${attributes.verb} path ${goQuote(attributes.path)}${suffix}`, {});
  }
  const resource = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  const scope = attributes.namespace === '' ? 'at the cluster scope' : `in the namespace ${goQuote(attributes.namespace)}`;
  const qualified = attributes.group === '' ? attributes.resource : `${attributes.resource}.${attributes.group}`;
  const subject = attributes.name === '' ? `${qualified} is forbidden` : `${qualified} ${goQuote(attributes.name)} is forbidden`;
  return new StatusError(
    403,
    'Forbidden',
    `${subject}: User ${goQuote(user.username)} cannot ${attributes.verb} resource ${goQuote(resource)} in API group ${goQuote(attributes.group)} ${scope}${suffix}`,
    { name: attributes.name, group: attributes.group, kind: attributes.resource },
  );
}
