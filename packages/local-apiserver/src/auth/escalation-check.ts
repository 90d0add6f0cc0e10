import { badRequest, forbidden, notFound, type StatusError } from '../errors.js';
import { deepEqual, type KubeObject } from '../kube-object.js';
import type { ResourceType } from '../resource-type.js';
import type { Authorizer } from './authorizer.js';
import { rbacGroup, roleRefOf } from './rbac-authorizer.js';
import { compactRuleString, compactRules, policyRulesOf, uncoveredRules, type PolicyRule } from './rbac-rules.js';
import { isPrivileged, type UserInfo } from './user-info.js';

/**
 * RBAC escalation prevention, as kube-apiserver's rbac registry: writing a Role or ClusterRole needs
 * `escalate` on it or holding every permission it grants (and cluster-admin rights to set an
 * aggregationRule); writing a RoleBinding or ClusterRoleBinding needs `bind` on the role it names or
 * holding every permission of that role. Members of `system:masters` skip the checks.
 */
export interface RbacWrite {
  readonly type: ResourceType;
  readonly object: KubeObject;
  /** The stored object, for updates and patches. */
  readonly previous?: KubeObject;
}

/** The request a write comes from: who, and the namespace and name of its URL. */
export interface WriteRequest {
  readonly user: UserInfo;
  readonly namespace: string;
  readonly name: string;
}

const fullAuthority: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export function checkRbacEscalation(authorizer: Authorizer, request: WriteRequest, write: RbacWrite): void {
  const { type, object, previous } = write;
  if (type.group !== rbacGroup || isPrivileged(request.user)) return;
  const name = object.metadata.name ?? '';
  const refuse = (message: string): StatusError => forbidden(`${type.plural}.${rbacGroup} ${JSON.stringify(name)} is forbidden: ${message}`, { name, group: rbacGroup, kind: type.plural });
  // Finalizers and ownerReferences are the garbage collector's business, not a grant.
  if (previous !== undefined && onlyGarbageCollectionFieldsChange(object, previous)) return;

  if (type.plural === 'roles' || type.plural === 'clusterroles') {
    const escalate = authorizer.authorize(request.user, {
      verb: 'escalate',
      isResourceRequest: true,
      path: '',
      apiGroup: rbacGroup,
      apiVersion: '*',
      resource: type.plural,
      subresource: '',
      namespace: request.namespace,
      name: request.name,
    });
    if (escalate.allowed) return;
    const missing = missingPermissions(authorizer, request, policyRulesOf(object));
    if (missing !== undefined) throw refuse(missing);
    if (type.plural === 'clusterroles' && (hasAggregationRule(object) || (previous !== undefined && hasAggregationRule(previous)))) {
      if (missingPermissions(authorizer, request, fullAuthority) !== undefined) throw refuse('must have cluster-admin privileges to use the aggregationRule');
    }
    return;
  }

  if (type.plural === 'rolebindings' || type.plural === 'clusterrolebindings') {
    const roleRef = roleRefOf(object);
    const resource = roleRef.kind === 'Role' ? 'roles' : roleRef.kind === 'ClusterRole' ? 'clusterroles' : undefined;
    if (resource === undefined) throw badRequest(`unsupported role reference kind: ${JSON.stringify(roleRef.kind)}`);
    const bind = authorizer.authorize(request.user, {
      verb: 'bind',
      isResourceRequest: true,
      path: '',
      apiGroup: rbacGroup,
      apiVersion: '',
      resource,
      subresource: '',
      namespace: request.namespace,
      name: roleRef.name,
    });
    if (bind.allowed) return;
    const resolved = authorizer.rbac.roleReferenceRules(roleRef, request.namespace);
    if ('error' in resolved) throw notFound({ group: rbacGroup, plural: resource }, roleRef.name);
    const missing = missingPermissions(authorizer, request, resolved.rules);
    if (missing !== undefined) throw refuse(missing);
  }
}

/** Why the user may not grant `rules` in the request's namespace (kube's ConfirmNoEscalation), or undefined. */
function missingPermissions(authorizer: Authorizer, request: WriteRequest, rules: readonly PolicyRule[]): string | undefined {
  const owned = authorizer.rbac.rulesFor(request.user, request.namespace);
  const missing = uncoveredRules(owned.rules, rules);
  if (missing.length === 0) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactRuleString))].sort();
  const groups = `[${request.user.groups.map((group) => JSON.stringify(group)).join(' ')}]`;
  let message = `user ${JSON.stringify(request.user.username)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owned.errors.length > 0) message += `; resolution errors: [${[...new Set(owned.errors)].join(' ')}]`;
  return message;
}

function hasAggregationRule(role: KubeObject): boolean {
  const rule = role['aggregationRule'];
  if (typeof rule !== 'object' || rule === null) return false;
  const selectors = (rule as Record<string, unknown>)['clusterRoleSelectors'];
  return Array.isArray(selectors) && selectors.length > 0;
}

function onlyGarbageCollectionFieldsChange(object: KubeObject, previous: KubeObject): boolean {
  const comparable = (value: KubeObject): KubeObject => {
    const { ownerReferences: _owners, finalizers: _finalizers, resourceVersion: _version, managedFields: _fields, ...metadata } = value.metadata;
    return { ...value, metadata };
  };
  return deepEqual(comparable(object), comparable(previous));
}

