import { renderedObjects, type RenderedBundle } from '@olm/bundle-render';
import type { KubeClient } from '@olm/core';
import type { KubeObject } from '@olm/core';
import { groupOf } from './object-identity.js';
import { allows, uncoveredPermissions, type Permission, type PolicyRule } from './policy-rules.js';
import type { MissingPermission } from './types.js';

const rbacGroup = 'rbac.authorization.k8s.io';
/** Applying reads and writes each object by name; creating, listing and watching are on its collection. */
const objectVerbs = ['get', 'patch', 'update', 'delete'] as const;
const collectionVerbs = ['create', 'list', 'watch'] as const;

/**
 * Every permission `account` lacks to apply `rendered`: the verbs on each object's resource in its
 * namespace, and for RBAC objects the rules kube-apiserver's escalation check would ask it to hold
 * (unless it may `escalate` roles or `bind` the role a binding names). The rules are asked once per
 * namespace with SelfSubjectRulesReview as the account and judged here, so a bundle of a thousand
 * objects costs a request per namespace, not per object.
 */
export async function missingPermissions(admin: KubeClient, account: KubeClient, rendered: RenderedBundle): Promise<MissingPermission[]> {
  const objects = renderedObjects(rendered);
  const placed = await Promise.all(objects.map(async (object) => ({ object, ...(await placeOf(admin, object)) })));
  const rules = await rulesByScope(admin, account, new Set(placed.map((entry) => entry.scope)));
  const missing = new Map<string, MissingPermission>();
  const add = (permission: Permission, namespace: string) => {
    const entry = toMissing(permission, namespace);
    missing.set(JSON.stringify([entry.namespace ?? '', entry.group, entry.resource, entry.name ?? '', entry.verb, entry.nonResourceURL ?? '']), entry);
  };
  for (const { object, resource, scope } of placed) {
    const held = rules.get(scope)!;
    const group = groupOf(object.apiVersion);
    const name = object.metadata.name;
    for (const verb of objectVerbs) if (!allows(held, { verb, group, resource, name })) add({ verb, group, resource, name }, scope);
    for (const verb of collectionVerbs) if (!allows(held, { verb, group, resource })) add({ verb, group, resource }, scope);
    for (const permission of await escalation(admin, rendered, object, held, scope)) add(permission, scope);
  }
  return [...missing.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)).map(([, entry]) => entry);
}

async function placeOf(admin: KubeClient, object: KubeObject): Promise<{ resource: string; scope: string }> {
  const info = await admin.resourceFor(object);
  return { resource: info.plural, scope: info.namespaced ? (object.metadata.namespace ?? '') : '' };
}

/**
 * The account's rules per namespace (`''` for the cluster scope). kube's SelfSubjectRulesReview
 * needs a namespace and adds that namespace's RoleBindings to the ClusterRoleBindings; for the
 * cluster scope alone it is asked about a namespace that does not exist, so no RoleBinding can add
 * rules that would not hold for cluster-scoped resources.
 */
async function rulesByScope(admin: KubeClient, account: KubeClient, scopes: ReadonlySet<string>): Promise<Map<string, PolicyRule[]>> {
  const entries = await Promise.all(
    [...scopes].map(async (scope) => [scope, await rulesIn(account, scope === '' ? await absentNamespace(admin) : scope)] as const),
  );
  return new Map(entries);
}

async function rulesIn(account: KubeClient, namespace: string): Promise<PolicyRule[]> {
  const review = (await account.request({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } },
  })) as { status?: { resourceRules?: PolicyRule[]; nonResourceRules?: PolicyRule[] } };
  return [...(review.status?.resourceRules ?? []), ...(review.status?.nonResourceRules ?? [])];
}

async function absentNamespace(admin: KubeClient): Promise<string> {
  for (;;) {
    const name = `olm-preflight-cluster-scope-${Math.random().toString(36).slice(2, 10)}`;
    if (!(await admin.find({ apiVersion: 'v1', kind: 'Namespace', name }))) return name;
  }
}

/** What kube-apiserver's escalation check would refuse: rules a Role grants, or a binding's role holds, that the account does not. */
async function escalation(admin: KubeClient, rendered: RenderedBundle, object: KubeObject, held: readonly PolicyRule[], scope: string): Promise<Permission[]> {
  if (groupOf(object.apiVersion) !== rbacGroup) return [];
  const name = object.metadata.name;
  if (object.kind === 'Role' || object.kind === 'ClusterRole') {
    const resource = object.kind === 'Role' ? 'roles' : 'clusterroles';
    if (allows(held, { verb: 'escalate', group: rbacGroup, resource, name })) return [];
    return uncoveredPermissions(held, rulesOf(object));
  }
  if (object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding') {
    const roleRef = (object as { roleRef?: { kind?: string; name?: string } }).roleRef ?? {};
    const resource = roleRef.kind === 'Role' ? 'roles' : 'clusterroles';
    if (allows(held, { verb: 'bind', group: rbacGroup, resource, name: roleRef.name })) return [];
    const role = await referencedRole(admin, rendered, roleRef.kind ?? 'ClusterRole', roleRef.name ?? '', scope);
    // A binding to a role that exists nowhere is refused unless the account may bind it.
    if (!role) return [{ verb: 'bind', group: rbacGroup, resource, ...(roleRef.name ? { name: roleRef.name } : {}) }];
    return uncoveredPermissions(held, rulesOf(role));
  }
  return [];
}

async function referencedRole(admin: KubeClient, rendered: RenderedBundle, kind: string, name: string, namespace: string): Promise<KubeObject | undefined> {
  const shipped = renderedObjects(rendered).find(
    (candidate) => groupOf(candidate.apiVersion) === rbacGroup && candidate.kind === kind && candidate.metadata.name === name && (kind === 'ClusterRole' || candidate.metadata.namespace === namespace),
  );
  if (shipped) return shipped;
  return admin.find<KubeObject>({ apiVersion: `${rbacGroup}/v1`, kind, name, ...(kind === 'Role' ? { namespace } : {}) });
}

function rulesOf(role: KubeObject): PolicyRule[] {
  const rules = (role as { rules?: unknown }).rules;
  return Array.isArray(rules) ? (rules as PolicyRule[]) : [];
}

function toMissing(permission: Permission, namespace: string): MissingPermission {
  return {
    verb: permission.verb,
    group: permission.group,
    resource: permission.resource,
    ...(namespace !== '' && permission.nonResourceURL === undefined ? { namespace } : {}),
    ...(permission.name !== undefined ? { name: permission.name } : {}),
    ...(permission.nonResourceURL !== undefined ? { nonResourceURL: permission.nonResourceURL } : {}),
  };
}
