/**
 * A CSV's namespaced RBAC adapted to its OperatorGroup's targets (upstream `ensureSingletonRBAC` and
 * `ensureTenantRBAC`): lifted to cluster scope for AllNamespaces groups, copied into each target
 * namespace otherwise.
 */
import type { KubeObject, PolicyRule } from '@olm/core';
import { isRecord, readIdentity, readInstallPermissions, type ObjectIdentity } from './csv-input.js';
import {
  csvOwnerReferences,
  generateCsvPermissionsByServiceAccount,
  type RoleBindingObject,
  type RoleObject,
} from './csv-permissions.js';
import { ContentHashLabelKey, CopiedLabelKey, CsvKind, ManagedLabelKey, ManagedLabelValue, ownerLabels } from './labels.js';
import { roleBindingHash } from './permission-hash.js';

/** Added to every lifted ClusterRole: an AllNamespaces operator must be able to see the namespaces it watches. */
export const namespaceViewRule: PolicyRule = { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] };

/**
 * A Role as a ClusterRole of the same name and labels, plus `get,list,watch` on namespaces. The labels,
 * `olm.permissions.hash` included, are kept: the ClusterRole still grants the rules that hash names.
 */
export function liftRole(role: RoleObject): RoleObject {
  return {
    apiVersion: role.apiVersion,
    kind: 'ClusterRole',
    metadata: { name: role.metadata.name, labels: { ...role.metadata.labels } },
    rules: [...role.rules, namespaceViewRule],
  };
}

/**
 * A RoleBinding as a ClusterRoleBinding of the same name, subjects and labels, bound to the lifted
 * ClusterRole; its `olm.permissions.hash` is recomputed because its roleRef changed.
 */
export function liftRoleBinding(binding: RoleBindingObject): RoleBindingObject {
  const roleRef = { apiGroup: binding.roleRef.apiGroup, kind: 'ClusterRole', name: binding.roleRef.name };
  return {
    apiVersion: binding.apiVersion,
    kind: 'ClusterRoleBinding',
    metadata: {
      name: binding.metadata.name,
      labels: { ...binding.metadata.labels, [ContentHashLabelKey]: roleBindingHash(roleRef, binding.subjects) },
    },
    roleRef,
    subjects: binding.subjects,
  };
}

/**
 * A Role or RoleBinding copied into `targetNamespace`: owned (labels and, when its UID is known, a
 * non-blocking reference) by the copied CSV there, labelled `olm.copiedFrom=<operator namespace>`.
 */
export function copyToNamespace<T extends RoleObject | RoleBindingObject>(
  object: T,
  operatorNamespace: string,
  targetCsv: ObjectIdentity,
): T {
  const ownerReferences = csvOwnerReferences(targetCsv);
  return {
    ...object,
    metadata: {
      name: object.metadata.name,
      namespace: targetCsv.namespace,
      labels: {
        ...object.metadata.labels,
        ...ownerLabels(targetCsv, CsvKind),
        [CopiedLabelKey]: operatorNamespace,
        [ManagedLabelKey]: ManagedLabelValue,
      },
      ...(ownerReferences.length > 0 ? { ownerReferences } : {}),
    },
  };
}

/**
 * The group's `status.namespaces`: `undefined` before the group controller wrote it, `[""]` for
 * AllNamespaces. Sorted and without duplicates (upstream writes them in map order).
 */
export function readTargetNamespaces(operatorGroup: KubeObject): string[] | undefined {
  const status = operatorGroup.status;
  if (!isRecord(status) || !Array.isArray(status.namespaces)) return undefined;
  return [...new Set(status.namespaces.filter((namespace): namespace is string => typeof namespace === 'string'))].sort();
}

export function isAllNamespaces(targets: readonly string[] | undefined): boolean {
  return targets !== undefined && targets.length === 1 && targets[0] === '';
}

function namespacedObjects(csv: KubeObject): { roles: RoleObject[]; roleBindings: RoleBindingObject[] } {
  const groups = generateCsvPermissionsByServiceAccount(csv);
  return { roles: groups.flatMap((group) => group.roles), roleBindings: groups.flatMap((group) => group.roleBindings) };
}

/** AllNamespaces: the CSV's Roles and RoleBindings as ClusterRoles, then ClusterRoleBindings. */
export function generateLiftedPermissions(csv: KubeObject): KubeObject[] {
  const { roles, roleBindings } = namespacedObjects(csv);
  return [...roles.map(liftRole), ...roleBindings.map(liftRoleBinding)];
}

/**
 * The CSV's Roles then RoleBindings copied into each of `targetNamespaces` except the operator namespace
 * (namespaces in sorted order). Owners come from `copiedCsvs` (the CSV's copies, by namespace).
 */
export function generateCopiedPermissions(
  csvObject: KubeObject,
  targetNamespaces: readonly string[],
  copiedCsvs: readonly KubeObject[] = [],
): KubeObject[] {
  const csv = readIdentity(csvObject, 'ClusterServiceVersion');
  const targets = [...new Set(targetNamespaces)].filter((namespace) => namespace !== '' && namespace !== csv.namespace).sort();
  // Nothing to copy (an OwnNamespace group): the permissions are checked as for any group, not named and hashed.
  if (targets.length === 0) readInstallPermissions(csvObject);
  const { roles, roleBindings } = targets.length > 0 ? namespacedObjects(csvObject) : { roles: [], roleBindings: [] };
  const copies = new Map<string, ObjectIdentity>();
  for (const copied of copiedCsvs) {
    const identity = readIdentity(copied, 'copied ClusterServiceVersion');
    if (identity.name === csv.name) copies.set(identity.namespace, identity);
  }
  return targets.flatMap((namespace) => {
    const targetCsv = copies.get(namespace) ?? { name: csv.name, namespace };
    return [
      ...roles.map((role) => copyToNamespace(role, csv.namespace, targetCsv)),
      ...roleBindings.map((binding) => copyToNamespace(binding, csv.namespace, targetCsv)),
    ];
  });
}

/**
 * What the CSV needs because of its OperatorGroup: lifted cluster RBAC for AllNamespaces, copies for
 * other targets, nothing before the group has `status.namespaces` (upstream waits too).
 */
export function generateOperatorGroupPermissions(input: {
  readonly csv: KubeObject;
  readonly operatorGroup: KubeObject;
  readonly copiedCsvs?: readonly KubeObject[];
}): KubeObject[] {
  readIdentity(input.operatorGroup, 'OperatorGroup');
  const targets = readTargetNamespaces(input.operatorGroup);
  if (targets === undefined) {
    readIdentity(input.csv, 'ClusterServiceVersion');
    return [];
  }
  if (isAllNamespaces(targets)) return generateLiftedPermissions(input.csv);
  return generateCopiedPermissions(input.csv, targets, input.copiedCsvs);
}
