import type { PolicyRule } from '@olm/core';

/**
 * RBAC rule arithmetic as kube-apiserver's authorizer and its escalation check do it: whether held
 * rules allow one request, and which parts of granted rules they do not cover. Pure, so the
 * preflight asks the API server once per namespace for the rules and decides everything here.
 */

export type { PolicyRule };

/** One request: a verb on a resource (optionally one named object), or on a non-resource URL. */
export interface Permission {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly name?: string;
  readonly nonResourceURL?: string;
}

const has = (values: readonly string[] | undefined, value: string): boolean => (values ?? []).some((candidate) => candidate === '*' || candidate === value);

function resourceMatches(resources: readonly string[] | undefined, resource: string): boolean {
  const slash = resource.indexOf('/');
  return (resources ?? []).some(
    (candidate) =>
      candidate === '*' ||
      candidate === resource ||
      // `pods/*` covers every subresource of pods, `*/scale` the scale subresource of everything.
      (slash > 0 && (candidate === `${resource.slice(0, slash)}/*` || candidate === `*${resource.slice(slash)}`)),
  );
}

function urlMatches(urls: readonly string[] | undefined, url: string): boolean {
  return (urls ?? []).some((candidate) => candidate === '*' || candidate === url || (candidate.endsWith('*') && url.startsWith(candidate.slice(0, -1))));
}

/** Whether one held rule allows `permission`; a rule with resourceNames never allows a request without a name. */
function ruleAllows(rule: PolicyRule, permission: Permission): boolean {
  if (!has(rule.verbs, permission.verb)) return false;
  if (permission.nonResourceURL !== undefined) return urlMatches(rule.nonResourceURLs, permission.nonResourceURL);
  if (!has(rule.apiGroups, permission.group) || !resourceMatches(rule.resources, permission.resource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (permission.name !== undefined && names.includes(permission.name));
}

export function allows(held: readonly PolicyRule[], permission: Permission): boolean {
  return held.some((rule) => ruleAllows(rule, permission));
}

/** A granted rule split into single requests; `*` stays literal, so only a held `*` covers it (as kube's Covers). */
function requestsOf(rule: PolicyRule): Permission[] {
  const out: Permission[] = [];
  for (const verb of rule.verbs) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ verb, group: '', resource: '', nonResourceURL: url });
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ verb, group, resource });
        for (const name of names) out.push({ verb, group, resource, name });
      }
    }
  }
  return out;
}

/** The requests of `granted` that `held` does not allow: what granting them would escalate. */
export function uncoveredPermissions(held: readonly PolicyRule[], granted: readonly PolicyRule[]): Permission[] {
  return granted.flatMap(requestsOf).filter((permission) => !allows(held, permission));
}
