/**
 * Reads what RBAC generation needs from plain objects (CSV, OperatorGroup), checking shapes so bad
 * input becomes an `OLM_RBAC_*` error instead of a crash or an object the API server would reject.
 */
import type { KubeObject, PolicyRule } from '@olm/core';
import { RbacErrorCodes, rbacError } from './errors.js';

/** Name, namespace and UID of a namespaced object (the UID may be unknown before creation). */
export interface ObjectIdentity {
  readonly name: string;
  readonly namespace: string;
  readonly uid?: string;
}

/** One `permissions[]`/`clusterPermissions[]` entry. `rules` is `undefined` when the CSV gave none (Go's nil). */
export interface CsvPermission {
  readonly serviceAccountName: string;
  readonly rules: readonly PolicyRule[] | undefined;
}

export interface CsvInstallPermissions {
  readonly permissions: readonly CsvPermission[];
  readonly clusterPermissions: readonly CsvPermission[];
}

export type RuleScope = 'namespaced' | 'cluster';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(object: KubeObject | undefined): string {
  const name = object?.metadata?.name;
  return `${object?.kind ?? 'object'} ${typeof name === 'string' ? `"${name}"` : '(unnamed)'}`;
}

/** Name, namespace and UID of a namespaced object; throws `OLM_RBAC_INVALID_OBJECT` without a name or namespace. */
export function readIdentity(object: KubeObject, what: string): ObjectIdentity {
  if (!isRecord(object) || !isRecord(object.metadata)) {
    throw rbacError(RbacErrorCodes.invalidObject, `the ${what} is not a Kubernetes object (no metadata)`, { what });
  }
  const { name, namespace, uid } = object.metadata as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') {
    throw rbacError(RbacErrorCodes.invalidObject, `the ${what} has no metadata.name`, { what });
  }
  if (typeof namespace !== 'string' || namespace === '') {
    throw rbacError(RbacErrorCodes.invalidObject, `the ${what} "${name}" has no metadata.namespace`, { what, name });
  }
  return typeof uid === 'string' && uid !== '' ? { name, namespace, uid } : { name, namespace };
}

/** Name and UID of a cluster-scoped object (CRD, APIService). */
export function readClusterIdentity(object: KubeObject, what: string): { readonly name: string; readonly uid?: string } {
  if (!isRecord(object) || !isRecord(object.metadata) || typeof object.metadata.name !== 'string' || object.metadata.name === '') {
    throw rbacError(RbacErrorCodes.invalidObject, `the ${what} has no metadata.name`, { what });
  }
  const uid = object.metadata.uid;
  return typeof uid === 'string' && uid !== '' ? { name: object.metadata.name, uid } : { name: object.metadata.name };
}

export function readSpec(object: KubeObject): Record<string, unknown> {
  return isRecord(object.spec) ? object.spec : {};
}

/**
 * The CSV's `spec.install.spec.permissions` and `clusterPermissions`, validated. Throws
 * `OLM_RBAC_MISSING_INSTALL_STRATEGY` without `spec.install`, `OLM_RBAC_UNSUPPORTED_INSTALL_STRATEGY`
 * unless the strategy is `deployment`. A deployment strategy without `spec` has no permissions.
 */
export function readInstallPermissions(csv: KubeObject): CsvInstallPermissions {
  const csvName = describe(csv);
  const install = readSpec(csv).install;
  if (!isRecord(install)) {
    throw rbacError(
      RbacErrorCodes.missingInstallStrategy,
      `${csvName} has no spec.install: add an install strategy ("strategy: deployment" with its "spec")`,
      { csv: csv.metadata?.name },
    );
  }
  if (install.strategy !== 'deployment') {
    throw rbacError(
      RbacErrorCodes.unsupportedInstallStrategy,
      `${csvName} has unrecognized install strategy ${JSON.stringify(install.strategy ?? null)}: only "deployment" is supported`,
      { csv: csv.metadata?.name, strategy: install.strategy },
    );
  }
  const details = isRecord(install.spec) ? install.spec : {};
  return {
    permissions: readPermissionList(details.permissions, 'permissions', 'namespaced', csvName),
    clusterPermissions: readPermissionList(details.clusterPermissions, 'clusterPermissions', 'cluster', csvName),
  };
}

function readPermissionList(value: unknown, field: string, scope: RuleScope, csvName: string): CsvPermission[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw rbacError(RbacErrorCodes.invalidPermission, `${csvName}: spec.install.spec.${field} must be a list`, { field });
  }
  return value.map((entry: unknown, index) => {
    const where = `spec.install.spec.${field}[${index}]`;
    if (!isRecord(entry) || typeof entry.serviceAccountName !== 'string' || entry.serviceAccountName === '') {
      throw rbacError(RbacErrorCodes.invalidPermission, `${csvName}: ${where} has no serviceAccountName`, { field, index });
    }
    const serviceAccountName = entry.serviceAccountName;
    if (entry.rules === undefined || entry.rules === null) return { serviceAccountName, rules: undefined };
    if (!Array.isArray(entry.rules)) {
      throw rbacError(RbacErrorCodes.invalidPermission, `${csvName}: ${where}.rules must be a list`, { field, index, serviceAccountName });
    }
    const rules = entry.rules.map((rule: unknown, ruleIndex) =>
      readPolicyRule(rule, scope, `${csvName}: ${where}.rules[${ruleIndex}] (service account "${serviceAccountName}")`),
    );
    return { serviceAccountName, rules };
  });
}

const ruleFields = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

/**
 * A PolicyRule with only its five known fields (empty lists dropped), checked as the API server's
 * `ValidatePolicyRule` would, so a bad CSV fails here with a clear message rather than mid-install.
 */
export function readPolicyRule(value: unknown, scope: RuleScope, where: string): PolicyRule {
  if (!isRecord(value)) throw rbacError(RbacErrorCodes.invalidRule, `${where} is not an object`, { where });
  const lists: Partial<Record<(typeof ruleFields)[number], string[]>> = {};
  for (const field of ruleFields) {
    const list = value[field];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) {
      throw rbacError(RbacErrorCodes.invalidRule, `${where}: ${field} must be a list of strings`, { where, field });
    }
    if (list.length > 0) lists[field] = [...(list as string[])];
  }
  const fail = (message: string): never => {
    throw rbacError(RbacErrorCodes.invalidRule, `${where}: ${message}`, { where, rule: value });
  };
  if (lists.verbs === undefined) fail('verbs must contain at least one value');
  if (lists.nonResourceURLs !== undefined) {
    if (scope === 'namespaced') fail('namespaced rules cannot apply to non-resource URLs (use clusterPermissions)');
    if (lists.apiGroups !== undefined || lists.resources !== undefined || lists.resourceNames !== undefined) {
      fail('rules cannot apply to both regular resources and non-resource URLs');
    }
  } else {
    if (lists.apiGroups === undefined) fail('resource rules must supply at least one api group ("" is the core group)');
    if (lists.resources === undefined) fail('resource rules must supply at least one resource');
  }
  const rule: { -readonly [K in keyof PolicyRule]: PolicyRule[K] } = { verbs: lists.verbs! };
  for (const field of ruleFields) if (field !== 'verbs' && lists[field] !== undefined) rule[field] = lists[field];
  return rule;
}
