import type { RequestAttributes } from './request-info.js';

/**
 * RBAC PolicyRules: whether one allows a request (kube's RuleAllows), whether a set of rules covers
 * another (escalation prevention), and the compact text kube-apiserver prints for missing rules.
 */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

const all = '*';

/** The rules of a Role or ClusterRole object, ignoring malformed entries. */
export function policyRulesOf(role: { readonly [key: string]: unknown } | undefined): PolicyRule[] {
  const rules = role?.['rules'];
  if (!Array.isArray(rules)) return [];
  const strings = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : undefined);
  const out: PolicyRule[] = [];
  for (const rule of rules) {
    if (typeof rule !== 'object' || rule === null) continue;
    const fields = rule as Record<string, unknown>;
    const apiGroups = strings(fields['apiGroups']);
    const resources = strings(fields['resources']);
    const resourceNames = strings(fields['resourceNames']);
    const nonResourceURLs = strings(fields['nonResourceURLs']);
    out.push({
      verbs: strings(fields['verbs']) ?? [],
      ...(apiGroups ? { apiGroups } : {}),
      ...(resources ? { resources } : {}),
      ...(resourceNames ? { resourceNames } : {}),
      ...(nonResourceURLs ? { nonResourceURLs } : {}),
    });
  }
  return out;
}

export function ruleAllows(attributes: RequestAttributes, rule: PolicyRule): boolean {
  if (!matchesOrAll(rule.verbs, attributes.verb)) return false;
  if (!attributes.isResourceRequest) return nonResourceURLMatches(rule.nonResourceURLs ?? [], attributes.path);
  const combined = attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  return (
    matchesOrAll(rule.apiGroups ?? [], attributes.apiGroup) &&
    resourceMatches(rule.resources ?? [], combined, attributes.subresource) &&
    // resourceNames constrain only requests that carry a name (not create, list or watch of all).
    ((rule.resourceNames ?? []).length === 0 || (rule.resourceNames ?? []).includes(attributes.name))
  );
}

function matchesOrAll(values: readonly string[], wanted: string): boolean {
  for (const value of values) if (value === all || value === wanted) return true;
  return false;
}

function resourceMatches(resources: readonly string[], combined: string, subresource: string): boolean {
  for (const resource of resources) {
    if (resource === all || resource === combined) return true;
    // `*/scale` matches the scale subresource of every resource.
    if (subresource !== '' && resource === `*/${subresource}`) return true;
  }
  return false;
}

function nonResourceURLMatches(urls: readonly string[], path: string): boolean {
  return urls.some((url) => nonResourceURLCovers(url, path));
}

/** `/apis/*` covers `/apis/apps/v1`; `*` covers every path. */
function nonResourceURLCovers(owner: string, path: string): boolean {
  if (owner === all || owner === path) return true;
  return owner.endsWith(all) && path.startsWith(owner.replace(/\*+$/, ''));
}

/** Splits rules into single-verb, single-resource, single-name rules (kube's BreakdownRule). */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if ((rule.resourceNames ?? []).length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        else for (const name of rule.resourceNames ?? []) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function includesAll(set: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((value) => set.includes(value));
}

/** Whether `owner` allows everything the single-valued `rule` does. */
function ruleCovers(owner: PolicyRule, rule: PolicyRule): boolean {
  const verbs = owner.verbs.includes(all) || includesAll(owner.verbs, rule.verbs);
  const groups = (owner.apiGroups ?? []).includes(all) || includesAll(owner.apiGroups ?? [], rule.apiGroups ?? []);
  const ownerResources = owner.resources ?? [];
  const resources =
    ownerResources.includes(all) ||
    (rule.resources ?? []).every((resource) => {
      if (ownerResources.includes(resource)) return true;
      const slash = resource.indexOf('/');
      return slash >= 0 && ownerResources.includes(`*/${resource.slice(slash + 1)}`);
    });
  const urls = (rule.nonResourceURLs ?? []).every((path) => (owner.nonResourceURLs ?? []).some((url) => nonResourceURLCovers(url, path)));
  const ownerNames = owner.resourceNames ?? [];
  const names = (rule.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || includesAll(ownerNames, rule.resourceNames ?? []);
  return verbs && groups && resources && urls && names;
}

/** The parts of `rules` that `ownerRules` do not cover (empty when they cover everything). */
export function uncoveredRules(ownerRules: readonly PolicyRule[], rules: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of rules) for (const part of breakdown(rule)) if (!ownerRules.some((owner) => ruleCovers(owner, part))) missing.push(part);
  return missing;
}

/** Merges rules of one group and one resource that differ only by verb (kube's CompactRules). */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, { apiGroups: string[]; resources: string[]; verbs: string[] }>();
  for (const rule of rules) {
    const isSimple = (rule.resourceNames ?? []).length === 0 && (rule.nonResourceURLs ?? []).length === 0 && rule.apiGroups?.length === 1 && rule.resources?.length === 1;
    if (!isSimple) {
      out.push(rule);
      continue;
    }
    const key = `${rule.apiGroups?.[0] ?? ''}\u0000${rule.resources?.[0] ?? ''}`;
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...rule.verbs);
    else simple.set(key, { apiGroups: [...(rule.apiGroups ?? [])], resources: [...(rule.resources ?? [])], verbs: [...rule.verbs] });
  }
  return [...out, ...simple.values()];
}

/** `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}`, as kube's CompactString. */
export function compactRuleString(rule: PolicyRule): string {
  const list = (values: readonly string[]): string => `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${list(rule.apiGroups ?? [])}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${list(rule.resources ?? [])}`);
  if ((rule.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${list(rule.nonResourceURLs ?? [])}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${list(rule.resourceNames ?? [])}`);
  if (rule.verbs.length > 0) parts.push(`Verbs:${list(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
