import { goQuote } from '@olm/go-format';
import { forbidden, type StatusError } from '../errors.js';
import type { Decision, RbacAuthorizer } from './rbac-authorizer.js';
import type { PolicyRule } from './rbac-rules.js';
import type { RequestAttributes } from './request-info.js';
import { isPrivileged, type UserInfo } from './user-info.js';

/**
 * kube-apiserver's authorizer chain here: members of `system:masters` may do anything (the
 * privileged-group authorizer kube-apiserver puts first), then RBAC. There is no Node authorizer
 * and no webhook.
 */
export class Authorizer {
  constructor(readonly rbac: RbacAuthorizer) {}

  authorize(user: UserInfo, attributes: RequestAttributes): Decision {
    if (isPrivileged(user)) return { allowed: true, reason: '' };
    return this.rbac.authorize(user, attributes);
  }

  /** What the user may do in a namespace (SelfSubjectRulesReview), resource and non-resource rules apart. */
  rulesFor(user: UserInfo, namespace: string): { resourceRules: PolicyRule[]; nonResourceRules: PolicyRule[]; errors: string[] } {
    const privileged: PolicyRule[] = isPrivileged(user)
      ? [
          { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
          { verbs: ['*'], nonResourceURLs: ['*'] },
        ]
      : [];
    const { rules, errors } = this.rbac.rulesFor(user, namespace);
    const all = [...privileged, ...rules];
    return {
      resourceRules: all.filter((rule) => (rule.resources ?? []).length > 0).map((rule) => ({ verbs: rule.verbs, apiGroups: rule.apiGroups ?? [], resources: rule.resources ?? [], ...(rule.resourceNames?.length ? { resourceNames: rule.resourceNames } : {}) })),
      nonResourceRules: all.filter((rule) => (rule.nonResourceURLs ?? []).length > 0).map((rule) => ({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs ?? [] })),
      errors,
    };
  }
}

/**
 * kube-apiserver's 403 for a refused request, word for word: `pods "p" is forbidden: User "u" cannot
 * get resource "pods" in API group "" in the namespace "ns"`, or `forbidden: User "u" cannot get
 * path "/x"`, followed by `: <reason>` when the authorizer gave one.
 */
export function forbiddenError(user: UserInfo, attributes: RequestAttributes, reason: string): StatusError {
  let message: string;
  if (!attributes.isResourceRequest) message = `User ${goQuote(user.username)} cannot ${attributes.verb} path ${goQuote(attributes.path)}`;
  else {
    const resource = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
    const scope = attributes.namespace === '' ? 'at the cluster scope' : `in the namespace ${goQuote(attributes.namespace)}`;
    message = `User ${goQuote(user.username)} cannot ${attributes.verb} resource ${goQuote(resource)} in API group ${goQuote(attributes.apiGroup)} ${scope}`;
  }
  if (reason !== '') message = `${message}: ${reason}`;
  if (!attributes.isResourceRequest) return forbidden(`forbidden: ${message}`, {});
  const qualified = attributes.apiGroup === '' ? attributes.resource : `${attributes.resource}.${attributes.apiGroup}`;
  const prefix = attributes.name === '' ? `${qualified} is forbidden` : `${qualified} ${goQuote(attributes.name)} is forbidden`;
  return forbidden(`${prefix}: ${message}`, { name: attributes.name, group: attributes.apiGroup, kind: attributes.resource });
}
