/**
 * The Go structs OLM hashes, as `@olm/go-format`'s `goStruct`s. Upstream hashes the JSON that Go
 * writes for them (field order, `omitempty`, HTML-safe escaping), so the bytes must match exactly
 * for names and hash labels to agree with objects an upstream OLM created.
 */
import type { PolicyRule, RbacSubject, RoleRef } from '@olm/core';
import { goStruct, type GoStruct } from '@olm/go-format';

/** A value Go would encode: `null` for a nil slice; structs keep their field order. */
export type GoJsonValue = string | number | boolean | null | readonly GoJsonValue[] | GoStruct;

/** A `[]string` field: `null` when nil. */
const stringSlice = (values: readonly string[] | undefined): GoJsonValue => (values === undefined ? null : [...values]);
/** A `[]string` field tagged `omitempty`: omitted when nil or empty. */
const omitEmptySlice = (values: readonly string[] | undefined): GoJsonValue | undefined =>
  values === undefined || values.length === 0 ? undefined : [...values];
const omitEmptyString = (value: string | undefined): GoJsonValue | undefined => (value === undefined || value === '' ? undefined : value);

/** `rbacv1.PolicyRule`: verbs, apiGroups, resources, resourceNames, nonResourceURLs (all but verbs `omitempty`). */
export function policyRuleStruct(rule: PolicyRule): GoStruct {
  return goStruct([
    ['verbs', stringSlice(rule.verbs)],
    ['apiGroups', omitEmptySlice(rule.apiGroups)],
    ['resources', omitEmptySlice(rule.resources)],
    ['resourceNames', omitEmptySlice(rule.resourceNames)],
    ['nonResourceURLs', omitEmptySlice(rule.nonResourceURLs)],
  ]);
}

/** `[]rbacv1.PolicyRule`: `null` when nil. */
export function policyRulesValue(rules: readonly PolicyRule[] | undefined): GoJsonValue {
  return rules === undefined ? null : rules.map(policyRuleStruct);
}

/** `rbacv1.RoleRef`: apiGroup, kind, name. */
export function roleRefStruct(roleRef: RoleRef): GoStruct {
  return goStruct([
    ['apiGroup', roleRef.apiGroup],
    ['kind', roleRef.kind],
    ['name', roleRef.name],
  ]);
}

/** `rbacv1.Subject`: kind, apiGroup (`omitempty`), name, namespace (`omitempty`). */
export function subjectStruct(subject: RbacSubject): GoStruct {
  return goStruct([
    ['kind', subject.kind],
    ['apiGroup', omitEmptyString(subject.apiGroup)],
    ['name', subject.name],
    ['namespace', omitEmptyString(subject.namespace)],
  ]);
}

/** `v1alpha1.StrategyDeploymentPermissions`: serviceAccountName, rules. */
export function permissionStruct(serviceAccountName: string, rules: readonly PolicyRule[] | undefined): GoStruct {
  return goStruct([
    ['serviceAccountName', serviceAccountName],
    ['rules', policyRulesValue(rules)],
  ]);
}
