import { ownerReferenceTo } from '@olm/api';
import type { CachedObject, OwnerReference, PolicyRule } from '@olm/core';
import { isDeepStrictEqual } from 'node:util';
import { Kinds } from './kinds.js';

/** The OperatorCondition fields the RBAC is made from. */
export interface OperatorConditionForRbac {
  metadata: { name: string; namespace: string; uid?: string };
  spec?: { serviceAccounts?: string[] };
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface RbacObject extends CachedObject {
  metadata: NonNullable<CachedObject['metadata']> & { name: string; namespace: string };
  rules?: PolicyRule[];
  subjects?: Subject[];
  roleRef?: RoleRef;
}

/** What each OperatorCondition's Role and RoleBinding are owned by: the OperatorCondition, as upstream (not a controller, blocking). */
function ownerReference(condition: OperatorConditionForRbac): OwnerReference {
  return ownerReferenceTo(Kinds.operatorCondition, condition, { controller: false, blockOwnerDeletion: true });
}

/**
 * The Role named after the OperatorCondition: its operator may read and write that one
 * OperatorCondition (`spec.conditions`, as operator-lib does) and its status (as operators
 * written against v1 do), and nothing else.
 */
export function operatorConditionRole(condition: OperatorConditionForRbac): RbacObject {
  const { name, namespace } = condition.metadata;
  const verbs = ['get', 'update', 'patch'];
  return {
    apiVersion: Kinds.role.apiVersion,
    kind: Kinds.role.kind,
    metadata: { name, namespace, ownerReferences: [ownerReference(condition)] },
    rules: [
      { verbs, apiGroups: ['operators.coreos.com'], resources: ['operatorconditions'], resourceNames: [name] },
      { verbs, apiGroups: ['operators.coreos.com'], resources: ['operatorconditions/status'], resourceNames: [name] },
    ],
  };
}

// A ServiceAccount's name is a DNS subdomain; the API server refuses a binding to anything else.
const serviceAccountName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The names in `spec.serviceAccounts` that cannot name a ServiceAccount (they are left out of the RoleBinding). */
export function invalidServiceAccounts(condition: OperatorConditionForRbac): string[] {
  return (condition.spec?.serviceAccounts ?? []).filter((account) => typeof account !== 'string' || account.length > 253 || !serviceAccountName.test(account)).map(String);
}

/**
 * The RoleBinding named after the OperatorCondition, granting its Role to the operator's ServiceAccounts
 * (`spec.serviceAccounts`, each once; names no ServiceAccount can have are left out).
 */
export function operatorConditionRoleBinding(condition: OperatorConditionForRbac): RbacObject {
  const { name, namespace } = condition.metadata;
  const invalid = new Set(invalidServiceAccounts(condition));
  const accounts = [...new Set((condition.spec?.serviceAccounts ?? []).filter((account) => typeof account === 'string' && !invalid.has(account)))];
  return {
    apiVersion: Kinds.roleBinding.apiVersion,
    kind: Kinds.roleBinding.kind,
    metadata: { name, namespace, ownerReferences: [ownerReference(condition)] },
    subjects: accounts.map((account) => ({ kind: 'ServiceAccount', name: account, namespace })),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
  };
}

/** Whether the live object carries the desired owner reference (by uid). */
export function isOwnedAsDesired(live: RbacObject, desired: RbacObject): boolean {
  const wanted = desired.metadata.ownerReferences?.[0];
  return (live.metadata.ownerReferences ?? []).some((reference) => reference.uid === wanted?.uid);
}

/** Rules compared as the API server stores them: absent and empty lists are the same. */
function normalizedRules(rules: readonly PolicyRule[] | undefined): unknown[] {
  return (rules ?? []).map((rule) => ({
    verbs: rule.verbs ?? [],
    apiGroups: rule.apiGroups ?? [],
    resources: rule.resources ?? [],
    resourceNames: rule.resourceNames ?? [],
  }));
}

/** Subjects compared as the authorizer reads them: a ServiceAccount without a namespace is in the binding's; no apiGroup is the core group. */
function normalizedSubjects(subjects: readonly Subject[] | undefined, namespace: string): unknown[] {
  return (subjects ?? []).map((subject) => ({
    kind: subject.kind,
    name: subject.name,
    namespace: subject.kind === 'ServiceAccount' ? subject.namespace || namespace : (subject.namespace ?? ''),
    apiGroup: subject.apiGroup ?? '',
  }));
}

export function hasDesiredRules(live: RbacObject, desired: RbacObject): boolean {
  return isDeepStrictEqual(normalizedRules(live.rules), normalizedRules(desired.rules));
}

export function hasDesiredSubjects(live: RbacObject, desired: RbacObject): boolean {
  return isDeepStrictEqual(normalizedSubjects(live.subjects, live.metadata.namespace), normalizedSubjects(desired.subjects, desired.metadata.namespace));
}

export function hasDesiredRoleRef(live: RbacObject, desired: RbacObject): boolean {
  return live.roleRef?.name === desired.roleRef?.name && live.roleRef?.kind === desired.roleRef?.kind && live.roleRef?.apiGroup === desired.roleRef?.apiGroup;
}

/** The live object's owner references with the desired one added (others, e.g. an admin's, stay). */
export function withDesiredOwner(live: RbacObject, desired: RbacObject): OwnerReference[] {
  const wanted = desired.metadata.ownerReferences![0]!;
  return [...(live.metadata.ownerReferences ?? []).filter((reference) => reference.uid !== wanted.uid), wanted];
}
