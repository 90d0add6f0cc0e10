/**
 * Go `encoding/json` output for the few shapes OLM hashes. Upstream hashes the JSON that Go writes for
 * its structs (field order, `omitempty`, HTML-safe escaping), so the bytes must match exactly for
 * names and hash labels to agree with objects an upstream OLM created.
 */
import type { PolicyRule, RbacSubject, RoleRef } from '@olm/core';

/** A value Go would encode: `null` for a nil slice; structs keep their field order. */
export type GoJsonValue = string | number | boolean | null | readonly GoJsonValue[] | GoStruct;

/** A Go struct: fields in declaration order; a field whose value is `undefined` is omitted (`omitempty`). */
export interface GoStruct {
  readonly goStruct: readonly (readonly [string, GoJsonValue | undefined])[];
}

export function goStruct(fields: readonly (readonly [string, GoJsonValue | undefined])[]): GoStruct {
  return { goStruct: fields };
}

const hex = (code: number): string => `\\u${code.toString(16).padStart(4, '0')}`;

/** A character Go writes other than as itself: quote, backslash, controls, HTML characters, U+2028/2029, surrogates. */
const needsEscape = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;

/** A JSON string as Go writes it: HTML-safe (`<`, `>`, `&` escaped), U+2028/2029 escaped, bad UTF-16 replaced. */
export function goJsonString(value: string): string {
  // Names, verbs and resources almost never need escaping: one string, not one concatenation per character.
  if (!needsEscape.test(value)) return `"${value}"`;
  let out = '"';
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code === 0x22) out += '\\"';
    else if (code === 0x5c) out += '\\\\';
    else if (code === 0x0a) out += '\\n';
    else if (code === 0x0d) out += '\\r';
    else if (code === 0x09) out += '\\t';
    else if (code === 0x08) out += '\\b';
    else if (code === 0x0c) out += '\\f';
    else if (code < 0x20 || code === 0x3c || code === 0x3e || code === 0x26 || code === 0x2028 || code === 0x2029) out += hex(code);
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += value[index]! + value[index + 1]!;
        index += 1;
      } else out += '\ufffd';
    } else if (code >= 0xdc00 && code <= 0xdfff) out += '\ufffd';
    else out += value[index]!;
  }
  return `${out}"`;
}

/** Encodes like Go's `json.Marshal` (no trailing newline). */
export function goJson(value: GoJsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return goJsonString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (!Array.isArray(value)) {
    const parts: string[] = [];
    for (const [key, field] of (value as GoStruct).goStruct) if (field !== undefined) parts.push(`${goJsonString(key)}:${goJson(field)}`);
    return `{${parts.join(',')}}`;
  }
  return `[${(value as readonly GoJsonValue[]).map(goJson).join(',')}]`;
}

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
