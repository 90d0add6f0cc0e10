import { badRequest, invalid, type FieldProblem } from '../errors.js';
import { isJsonObject, type JsonObject } from '../kube-object.js';
import { authorizationGroup } from './auth-api-types.js';
import type { Authorizer } from './authorizer.js';
import { aggregate } from './rbac-authorizer.js';
import { nonResourceAttributes, type RequestAttributes } from './request-info.js';
import type { UserInfo } from './user-info.js';

/**
 * authorization.k8s.io/v1: SelfSubjectAccessReview (`kubectl auth can-i`), SubjectAccessReview,
 * LocalSubjectAccessReview (for another user, needs `create` on them) and SelfSubjectRulesReview
 * (`kubectl auth can-i --list`). Each answers the request echoed with a `status`, as kube-apiserver.
 */
const apiVersion = `${authorizationGroup}/v1`;

export type ReviewKind = 'SelfSubjectAccessReview' | 'SubjectAccessReview' | 'LocalSubjectAccessReview';

export function accessReview(kind: ReviewKind, body: unknown, requester: UserInfo, authorizer: Authorizer, namespace: string): JsonObject {
  const review = reviewBody(body, kind);
  const spec = isJsonObject(review['spec']) ? review['spec'] : {};
  const resource = isJsonObject(spec['resourceAttributes']) ? spec['resourceAttributes'] : undefined;
  const nonResource = isJsonObject(spec['nonResourceAttributes']) ? spec['nonResourceAttributes'] : undefined;
  const problems: FieldProblem[] = [];
  if (resource && nonResource) problems.push(problem('spec.nonResourceAttributes', nonResource, 'cannot be specified in combination with resourceAttributes'));
  if (!resource && !nonResource) problems.push(problem('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  let user = requester;
  if (kind !== 'SelfSubjectAccessReview') {
    const groups = strings(spec['groups']);
    const username = text(spec['user']);
    if (username === '' && groups.length === 0) problems.push(problem('spec.user', '', 'at least one of user or group must be specified'));
    const uid = text(spec['uid']);
    const extra = isJsonObject(spec['extra']) ? Object.fromEntries(Object.entries(spec['extra']).map(([key, values]) => [key, strings(values)])) : undefined;
    user = { username, groups, ...(uid !== '' ? { uid } : {}), ...(extra ? { extra } : {}) };
  }
  if (kind === 'LocalSubjectAccessReview') {
    if (nonResource) problems.push(problem('spec.nonResourceAttributes', nonResource, 'disallowed on this kind of request'));
    if (resource) {
      const given = text(resource['namespace']);
      if (given !== '' && given !== namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
    }
  }
  if (problems.length > 0) throw invalid({ group: authorizationGroup, plural: `${kind.toLowerCase()}s` }, `${kind}.${authorizationGroup}`, review.metadata.name ?? '', problems);

  const attributes: RequestAttributes = resource
    ? {
        verb: text(resource['verb']),
        isResourceRequest: true,
        path: '',
        apiGroup: text(resource['group']),
        apiVersion: text(resource['version']),
        resource: text(resource['resource']),
        subresource: text(resource['subresource']),
        namespace: kind === 'LocalSubjectAccessReview' ? namespace : text(resource['namespace']),
        name: text(resource['name']),
      }
    : nonResourceAttributes(text(nonResource?.['verb']), text(nonResource?.['path']));
  const decision = authorizer.authorize(user, attributes);
  const status: JsonObject = { allowed: decision.allowed };
  if (decision.reason !== '') status['reason'] = decision.reason;
  const echoed = kind === 'LocalSubjectAccessReview' && resource ? { ...spec, resourceAttributes: { ...resource, namespace } } : spec;
  return { kind, apiVersion, metadata: { ...review.metadata, ...(kind === 'LocalSubjectAccessReview' ? { namespace } : {}) }, spec: echoed, status };
}

export function selfSubjectRulesReview(body: unknown, user: UserInfo, authorizer: Authorizer): JsonObject {
  const review = reviewBody(body, 'SelfSubjectRulesReview');
  const spec = isJsonObject(review['spec']) ? review['spec'] : {};
  const namespace = text(spec['namespace']);
  if (namespace === '') throw badRequest('no namespace on request');
  const { resourceRules, nonResourceRules, errors } = authorizer.rulesFor(user, namespace);
  const status: JsonObject = { resourceRules, nonResourceRules, incomplete: false };
  if (errors.length > 0) status['evaluationError'] = aggregate(errors);
  return { kind: 'SelfSubjectRulesReview', apiVersion, metadata: review.metadata, spec, status };
}

/** The review object with its kind checked and its metadata kept (without a creationTimestamp, as kube answers). */
export function reviewBody(body: unknown, kind: string): { metadata: JsonObject & { name?: string } } & JsonObject {
  if (body === undefined) throw badRequest(`the body of the request was empty: send a ${kind}`);
  if (!isJsonObject(body)) throw badRequest(`the body of the request is not a ${kind} object`);
  if (body['kind'] !== undefined && body['kind'] !== kind) throw badRequest(`the body is a ${String(body['kind'])}, this endpoint takes a ${kind}`);
  const metadata = isJsonObject(body['metadata']) ? { ...body['metadata'] } : {};
  metadata['creationTimestamp'] = null;
  return { ...body, metadata };
}

function problem(field: string, value: unknown, detail: string): FieldProblem {
  return { field, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}` };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}
