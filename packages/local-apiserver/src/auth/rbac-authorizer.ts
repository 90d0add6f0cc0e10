import type { KubeObject } from '../kube-object.js';
import type { Store } from '../store.js';
import { policyRulesOf, ruleAllows, type PolicyRule } from './rbac-rules.js';
import type { RequestAttributes } from './request-info.js';
import { parseServiceAccountUsername, type UserInfo } from './user-info.js';

/**
 * kube-apiserver's RBAC authorizer: ClusterRoleBindings grant their role's rules everywhere,
 * RoleBindings in the request's namespace. Bindings are indexed by subject (rebuilt after a binding
 * changes), so a request looks at the bindings of its user and groups only; roles are read live.
 */
export const rbacGroup = 'rbac.authorization.k8s.io';
const roleResource = `${rbacGroup}/roles`;
const clusterRoleResource = `${rbacGroup}/clusterroles`;
const roleBindingResource = `${rbacGroup}/rolebindings`;
const clusterRoleBindingResource = `${rbacGroup}/clusterrolebindings`;

export interface RoleRef {
  readonly kind: string;
  readonly name: string;
}

export interface Decision {
  readonly allowed: boolean;
  /** `RBAC: allowed by …` when allowed; when not, the resolution errors met (or empty). */
  readonly reason: string;
}

export type RoleRules = { readonly rules: PolicyRule[] } | { readonly error: string };

interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

interface BindingIndex {
  /** Subject key → ClusterRoleBindings naming it. */
  readonly cluster: Map<string, KubeObject[]>;
  /** Namespace → subject key → RoleBindings there naming it. */
  readonly namespaced: Map<string, Map<string, KubeObject[]>>;
}

export class RbacAuthorizer {
  private index: BindingIndex | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly store: Store) {
    this.unsubscribe = store.subscribe((event) => {
      if (event.resource === roleBindingResource || event.resource === clusterRoleBindingResource) this.index = undefined;
    });
  }

  stop(): void {
    this.unsubscribe();
  }

  authorize(user: UserInfo, attributes: RequestAttributes): Decision {
    const errors: string[] = [];
    for (const { binding, subject, namespace } of this.bindingsFor(user, attributes.namespace)) {
      const resolved = this.roleReferenceRules(roleRefOf(binding), namespace);
      if ('error' in resolved) {
        errors.push(resolved.error);
        continue;
      }
      if (resolved.rules.some((rule) => ruleAllows(attributes, rule))) return { allowed: true, reason: `RBAC: allowed by ${describe(binding, subject)}` };
    }
    return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${aggregate(errors)}` };
  }

  /** Every rule that applies to the user in the namespace (cluster-wide ones only for ''), with the errors met. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const { binding, namespace: bindingNamespace } of this.bindingsFor(user, namespace)) {
      const resolved = this.roleReferenceRules(roleRefOf(binding), bindingNamespace);
      if ('error' in resolved) errors.push(resolved.error);
      else rules.push(...resolved.rules);
    }
    return { rules, errors };
  }

  /** The rules a binding's roleRef grants; Roles are looked up in the binding's namespace. */
  roleReferenceRules(roleRef: RoleRef, namespace: string): RoleRules {
    if (roleRef.kind === 'ClusterRole') {
      const role = this.store.get(clusterRoleResource, undefined, roleRef.name);
      return role ? { rules: policyRulesOf(role) } : { error: `clusterrole.${rbacGroup} "${roleRef.name}" not found` };
    }
    if (roleRef.kind === 'Role') {
      const role = namespace === '' ? undefined : this.store.get(roleResource, namespace, roleRef.name);
      return role ? { rules: policyRulesOf(role) } : { error: `role.${rbacGroup} "${roleRef.name}" not found` };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(roleRef.kind)}` };
  }

  /** ClusterRoleBindings first, then RoleBindings of the namespace; each binding once, by name. */
  private *bindingsFor(user: UserInfo, namespace: string): Iterable<{ binding: KubeObject; subject: Subject; namespace: string }> {
    const index = this.currentIndex();
    const keys = subjectKeys(user);
    yield* matching(index.cluster, keys, user, '');
    if (namespace === '') return;
    const inNamespace = index.namespaced.get(namespace);
    if (inNamespace) yield* matching(inNamespace, keys, user, namespace);
  }

  private currentIndex(): BindingIndex {
    if (this.index) return this.index;
    const index: BindingIndex = { cluster: new Map(), namespaced: new Map() };
    for (const binding of this.store.list(clusterRoleBindingResource)) addBinding(index.cluster, binding, '');
    for (const binding of this.store.list(roleBindingResource)) {
      const namespace = binding.metadata.namespace ?? '';
      let byKey = index.namespaced.get(namespace);
      if (!byKey) index.namespaced.set(namespace, (byKey = new Map()));
      addBinding(byKey, binding, namespace);
    }
    this.index = index;
    return index;
  }
}

function* matching(byKey: Map<string, KubeObject[]>, keys: readonly string[], user: UserInfo, namespace: string): Iterable<{ binding: KubeObject; subject: Subject; namespace: string }> {
  const found = new Set<KubeObject>();
  for (const key of keys) for (const binding of byKey.get(key) ?? []) found.add(binding);
  const ordered = [...found].sort((left, right) => (left.metadata.name ?? '').localeCompare(right.metadata.name ?? ''));
  for (const binding of ordered) {
    // The first subject that applies names the grant in `allowed by …`, as kube reports it.
    const subject = subjectsOf(binding, namespace).find((candidate) => appliesTo(candidate, user));
    if (subject) yield { binding, subject, namespace };
  }
}

function addBinding(byKey: Map<string, KubeObject[]>, binding: KubeObject, namespace: string): void {
  const keys = new Set<string>();
  for (const subject of subjectsOf(binding, namespace)) {
    const key = subjectKey(subject);
    if (key !== undefined) keys.add(key);
  }
  for (const key of keys) {
    const list = byKey.get(key);
    if (list) list.push(binding);
    else byKey.set(key, [binding]);
  }
}

/** Subjects with a ServiceAccount's namespace defaulted to the RoleBinding's (kube's appliesTo). */
function subjectsOf(binding: KubeObject, namespace: string): Subject[] {
  const subjects = binding['subjects'];
  if (!Array.isArray(subjects)) return [];
  const out: Subject[] = [];
  for (const subject of subjects) {
    if (typeof subject !== 'object' || subject === null) continue;
    const { kind, name, namespace: subjectNamespace } = subject as Record<string, unknown>;
    if (typeof kind !== 'string' || typeof name !== 'string') continue;
    out.push({ kind, name, namespace: typeof subjectNamespace === 'string' && subjectNamespace !== '' ? subjectNamespace : namespace });
  }
  return out;
}

function subjectKey(subject: Subject): string | undefined {
  switch (subject.kind) {
    case 'User':
      return `user:${subject.name}`;
    case 'Group':
      return `group:${subject.name}`;
    case 'ServiceAccount':
      // A ServiceAccount subject is the user name `system:serviceaccount:<ns>:<name>`.
      return subject.namespace === '' ? undefined : `user:system:serviceaccount:${subject.namespace}:${subject.name}`;
    default:
      return undefined;
  }
}

function subjectKeys(user: UserInfo): string[] {
  return [`user:${user.username}`, ...user.groups.map((group) => `group:${group}`)];
}

function appliesTo(subject: Subject, user: UserInfo): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const account = parseServiceAccountUsername(user.username);
      return account !== undefined && account.namespace === subject.namespace && account.name === subject.name;
    }
    default:
      return false;
  }
}

export function roleRefOf(binding: KubeObject): RoleRef {
  const roleRef = binding['roleRef'];
  const fields = typeof roleRef === 'object' && roleRef !== null ? (roleRef as Record<string, unknown>) : {};
  return { kind: typeof fields['kind'] === 'string' ? fields['kind'] : '', name: typeof fields['name'] === 'string' ? fields['name'] : '' };
}

function describe(binding: KubeObject, subject: Subject): string {
  const roleRef = roleRefOf(binding);
  const bindingNamespace = binding.metadata.namespace;
  const who = subject.kind === 'ServiceAccount' ? `${subject.kind} "${subject.name}/${subject.namespace}"` : `${subject.kind} "${subject.name}"`;
  return bindingNamespace === undefined
    ? `ClusterRoleBinding "${binding.metadata.name ?? ''}" of ${roleRef.kind} "${roleRef.name}" to ${who}`
    : `RoleBinding "${binding.metadata.name ?? ''}/${bindingNamespace}" of ${roleRef.kind} "${roleRef.name}" to ${who}`;
}

/** Go's utilerrors aggregate text: one message as is, several as `[a, b]`, duplicates once. */
export function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}
