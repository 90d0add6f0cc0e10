import { serviceAccountUsername } from '@olm/api';
import { OlmError, type OwnerReference, type PolicyRule } from '@olm/core';

interface RbacSubject {
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

interface RbacMetadata {
  readonly name?: string;
  readonly namespace?: string;
  readonly ownerReferences?: readonly OwnerReference[];
}

export interface RoleObject {
  readonly metadata?: RbacMetadata;
  readonly rules?: readonly PolicyRule[] | null;
}

export interface BindingObject {
  readonly metadata?: RbacMetadata;
  readonly roleRef?: { readonly kind?: string; readonly name?: string };
  readonly subjects?: readonly RbacSubject[] | null;
}

/** The RBAC objects a rule check reads (the informer cache's Roles, ClusterRoles and their bindings). */
export interface RbacView {
  role(namespace: string, name: string): RoleObject | undefined;
  clusterRole(name: string): RoleObject | undefined;
  roleBindings(namespace: string): readonly BindingObject[];
  clusterRoleBindings(): readonly BindingObject[];
}

/** The CSV whose permissions are checked: RBAC owned by another CSV does not count for it. */
export interface RuleCheckOwner {
  readonly name: string;
  readonly uid?: string;
}

/** One request the rule stands for: a verb on a resource (group, resource, name) or on a non-resource URL. */
interface Attributes {
  readonly verb: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly name: string;
  readonly path: string;
}

/** Upstream's check before a rule is evaluated; a failure makes the install strategy invalid. */
export function policyRuleProblem(rule: PolicyRule): string | undefined {
  if ((rule.verbs ?? []).length === 0) return 'policy rule must have at least one verb';
  const resourceCount = (rule.apiGroups ?? []).length + (rule.resources ?? []).length + (rule.resourceNames ?? []).length;
  if (resourceCount > 0 && (rule.nonResourceURLs ?? []).length > 0) return 'rule cannot apply to both regular resources and non-resource URLs';
  return undefined;
}

/** Every combination of the rule's verbs, groups, resources, names and URLs (an empty list counts as one empty value). */
function attributesOf(rule: PolicyRule): Attributes[] {
  const orEmpty = (values: readonly string[] | undefined) => (values && values.length > 0 ? values : ['']);
  const seen = new Map<string, Attributes>();
  for (const verb of rule.verbs ?? []) {
    for (const apiGroup of orEmpty(rule.apiGroups)) {
      for (const resource of orEmpty(rule.resources)) {
        for (const name of orEmpty(rule.resourceNames)) {
          for (const path of orEmpty(rule.nonResourceURLs)) {
            const attributes = { verb, apiGroup, resource, name, path };
            seen.set(JSON.stringify(attributes), attributes);
          }
        }
      }
    }
  }
  return [...seen.values()];
}

const matches = (values: readonly string[] | undefined, wanted: string) => (values ?? []).some((value) => value === '*' || value === wanted);

/** Kubernetes' RBAC rule evaluation for one request. */
function ruleAllows(rule: PolicyRule, request: Attributes): boolean {
  if (!matches(rule.verbs, request.verb)) return false;
  if (request.path !== '') {
    return (rule.nonResourceURLs ?? []).some(
      (url) => url === '*' || url === request.path || (url.endsWith('*') && request.path.startsWith(url.slice(0, -1))),
    );
  }
  if (!matches(rule.apiGroups, request.apiGroup) || !matches(rule.resources, request.resource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(request.name);
}

/** A binding subject naming the service account (an SA subject without namespace means the binding's namespace). */
function bindsServiceAccount(subject: RbacSubject, bindingNamespace: string, namespace: string, name: string): boolean {
  if (subject.kind === 'ServiceAccount') {
    const subjectNamespace = subject.namespace || bindingNamespace;
    return subjectNamespace !== '' && subjectNamespace === namespace && subject.name === name;
  }
  if (subject.kind === 'User') return subject.name === serviceAccountUsername(namespace, name);
  return false;
}

/** Owned by some CSV, but not by this one: OLM may delete it independently, so it cannot satisfy this CSV. */
function ownedByAnotherCsv(owner: RuleCheckOwner, metadata: RbacMetadata | undefined): boolean {
  let conflict = false;
  for (const reference of metadata?.ownerReferences ?? []) {
    if (reference.kind !== 'ClusterServiceVersion') continue;
    if (reference.name === owner.name && (owner.uid === undefined || reference.uid === owner.uid)) return false;
    conflict = true;
  }
  return conflict;
}

/**
 * Whether the service account may do everything the rule describes (upstream's CSVRuleChecker): the
 * rule is expanded into single requests, and each must be allowed by a Role or ClusterRole bound to
 * the account, by ClusterRoleBindings anywhere or RoleBindings in `namespace` ("" = cluster scope).
 * RBAC owned by another CSV is ignored. Throws `OLM_CSV_INVALID_RULE` for a rule upstream rejects.
 */
export function ruleSatisfied(
  view: RbacView,
  owner: RuleCheckOwner,
  serviceAccount: { readonly namespace: string; readonly name: string },
  namespace: string,
  rule: PolicyRule,
): boolean {
  const problem = policyRuleProblem(rule);
  if (problem) {
    throw new OlmError('OLM_CSV_INVALID_RULE', `rule invalid: ${problem}`, {
      details: { serviceAccount: serviceAccount.name, rule },
    });
  }
  const granted: PolicyRule[] = [];
  const rolesOf = (role: RoleObject | undefined) => (role && !ownedByAnotherCsv(owner, role.metadata) ? role.rules ?? [] : []);
  const applies = (binding: BindingObject, bindingNamespace: string) =>
    !ownedByAnotherCsv(owner, binding.metadata) &&
    (binding.subjects ?? []).some((subject) => bindsServiceAccount(subject, bindingNamespace, serviceAccount.namespace, serviceAccount.name));
  for (const binding of view.clusterRoleBindings()) {
    if (binding.roleRef?.kind === 'ClusterRole' && applies(binding, '')) granted.push(...rolesOf(view.clusterRole(binding.roleRef.name ?? '')));
  }
  if (namespace !== '') {
    for (const binding of view.roleBindings(namespace)) {
      if (!applies(binding, namespace)) continue;
      const reference = binding.roleRef?.name ?? '';
      if (binding.roleRef?.kind === 'Role') granted.push(...rolesOf(view.role(namespace, reference)));
      else if (binding.roleRef?.kind === 'ClusterRole') granted.push(...rolesOf(view.clusterRole(reference)));
    }
  }
  return attributesOf(rule).every((request) => granted.some((candidate) => ruleAllows(candidate, request)));
}

/**
 * `json.Marshal` of an rbac/v1 PolicyRule: Go's field order, empty lists omitted (except verbs), HTML-safe.
 * Partial: a rule read from a CSV may lack `verbs`, which Go writes as null (a nil slice).
 */
export function policyRuleJson(rule: Partial<PolicyRule>): string {
  const ordered: Record<string, unknown> = { verbs: rule.verbs ?? null };
  for (const field of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
    const values = rule[field];
    if (values && values.length > 0) ordered[field] = values;
  }
  return JSON.stringify(ordered).replace(/[<>&\u2028\u2029]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
