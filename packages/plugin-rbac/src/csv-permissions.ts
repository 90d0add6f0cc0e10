/**
 * CSV permissions → the RBAC objects an InstallPlan creates (upstream `RBACForClusterServiceVersion`
 * plus the labels its step executor adds).
 */
import type { KubeObject, OwnerReference, PolicyRule, RbacSubject, RoleRef } from '@olm/core';
import { readIdentity, readInstallPermissions, type CsvPermission, type ObjectIdentity } from './csv-input.js';
import { permissionStruct } from './go-json.js';
import {
  ContentHashLabelKey,
  CsvApiVersion,
  CsvKind,
  ManagedLabelKey,
  ManagedLabelValue,
  RbacApiGroup,
  RbacApiVersion,
  nonBlockingOwnerReferences,
  ownerLabels,
  type Labels,
} from './labels.js';
import { generateName } from './names.js';
import { policyRulesHash, roleBindingHash } from './permission-hash.js';

/** The service account every pod gets; OLM binds it but never creates it. */
export const defaultServiceAccountName = 'default';

// A type alias, not an interface: `KubeObject['metadata']` has an index signature to satisfy.
export type RbacObjectMetadata = {
  readonly name: string;
  readonly namespace?: string;
  readonly labels: Labels;
  readonly ownerReferences?: readonly OwnerReference[];
};

export interface ServiceAccountObject extends KubeObject {
  readonly apiVersion: 'v1';
  readonly kind: 'ServiceAccount';
  readonly metadata: RbacObjectMetadata & { readonly namespace: string };
}

export interface RoleObject extends KubeObject {
  readonly apiVersion: typeof RbacApiVersion;
  readonly kind: 'Role' | 'ClusterRole';
  readonly metadata: RbacObjectMetadata;
  readonly rules: readonly PolicyRule[];
}

export interface RoleBindingObject extends KubeObject {
  readonly apiVersion: typeof RbacApiVersion;
  readonly kind: 'RoleBinding' | 'ClusterRoleBinding';
  readonly metadata: RbacObjectMetadata;
  readonly roleRef: RoleRef;
  readonly subjects: readonly RbacSubject[];
}

/** Everything generated for one service account, in apply order. */
export interface ServiceAccountPermissions {
  readonly serviceAccountName: string;
  /** Absent for `default`, which always exists. */
  readonly serviceAccount?: ServiceAccountObject;
  readonly roles: RoleObject[];
  readonly roleBindings: RoleBindingObject[];
  readonly clusterRoles: RoleObject[];
  readonly clusterRoleBindings: RoleBindingObject[];
}

function withOwnerReferences<M extends object>(metadata: M, ownerReferences: readonly OwnerReference[]): M {
  return ownerReferences.length > 0 ? { ...metadata, ownerReferences } : metadata;
}

/** The labels of every object generated for `csv`: owner labels plus `olm.managed`. */
export function csvOwnedLabels(csv: ObjectIdentity): Labels {
  return { ...ownerLabels(csv, CsvKind), [ManagedLabelKey]: ManagedLabelValue };
}

export function csvOwnerReferences(csv: ObjectIdentity): OwnerReference[] {
  return nonBlockingOwnerReferences(csv, CsvApiVersion, CsvKind);
}

function serviceAccountSubject(name: string, namespace: string): RbacSubject {
  return { kind: 'ServiceAccount', name, namespace };
}

/** A Role (or ClusterRole) and its binding to one service account, both named `name`. */
function roleAndBinding(
  kind: 'Role' | 'ClusterRole',
  name: string,
  csv: ObjectIdentity,
  permission: CsvPermission,
): [RoleObject, RoleBindingObject] {
  const namespaced = kind === 'Role';
  const ownerReferences = namespaced ? csvOwnerReferences(csv) : [];
  const labels = csvOwnedLabels(csv);
  const place = namespaced ? { name, namespace: csv.namespace } : { name };
  const role: RoleObject = {
    apiVersion: RbacApiVersion,
    kind,
    metadata: withOwnerReferences(
      { ...place, labels: { ...labels, [ContentHashLabelKey]: policyRulesHash(permission.rules) } },
      ownerReferences,
    ),
    rules: permission.rules ?? [],
  };
  const roleRef: RoleRef = { apiGroup: RbacApiGroup, kind, name };
  const subjects = [serviceAccountSubject(permission.serviceAccountName, csv.namespace)];
  const binding: RoleBindingObject = {
    apiVersion: RbacApiVersion,
    kind: namespaced ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: withOwnerReferences(
      { ...place, labels: { ...labels, [ContentHashLabelKey]: roleBindingHash(roleRef, subjects) } },
      ownerReferences,
    ),
    roleRef,
    subjects,
  };
  return [role, binding];
}

/**
 * Role name `<csv>-<serviceAccount>-<hash of [csvName, permission]>`; ClusterRole name
 * `<csv>-<hash of [csvName, csvNamespace, permission]>` (the namespace keeps two installs of one CSV
 * apart). Both at most 63 characters.
 */
export function permissionRoleName(csv: ObjectIdentity, permission: CsvPermission, scope: 'namespaced' | 'cluster'): string {
  const content = permissionStruct(permission.serviceAccountName, permission.rules);
  return scope === 'namespaced'
    ? generateName(`${csv.name}-${permission.serviceAccountName}`, [csv.name, content])
    : generateName(csv.name, [csv.name, csv.namespace, content]);
}

/**
 * The RBAC of a CSV grouped by service account, in the order service accounts first appear
 * (permissions, then clusterPermissions). An entry repeated verbatim yields its objects once.
 */
export function generateCsvPermissionsByServiceAccount(csvObject: KubeObject): ServiceAccountPermissions[] {
  const csv = readIdentity(csvObject, 'ClusterServiceVersion');
  const { permissions, clusterPermissions } = readInstallPermissions(csvObject);
  const groups = new Map<string, ServiceAccountPermissions>();
  const seenNames = new Set<string>();

  const groupOf = (serviceAccountName: string): ServiceAccountPermissions => {
    let group = groups.get(serviceAccountName);
    if (group === undefined) {
      const serviceAccount: ServiceAccountObject | undefined =
        serviceAccountName === defaultServiceAccountName
          ? undefined
          : {
              apiVersion: 'v1',
              kind: 'ServiceAccount',
              metadata: withOwnerReferences(
                { name: serviceAccountName, namespace: csv.namespace, labels: { [ManagedLabelKey]: ManagedLabelValue } },
                csvOwnerReferences(csv),
              ),
            };
      group = { serviceAccountName, ...(serviceAccount ? { serviceAccount } : {}), roles: [], roleBindings: [], clusterRoles: [], clusterRoleBindings: [] };
      groups.set(serviceAccountName, group);
    }
    return group;
  };

  for (const permission of permissions) {
    const group = groupOf(permission.serviceAccountName);
    const name = permissionRoleName(csv, permission, 'namespaced');
    if (seenNames.has(`Role/${name}`)) continue;
    seenNames.add(`Role/${name}`);
    const [role, binding] = roleAndBinding('Role', name, csv, permission);
    group.roles.push(role);
    group.roleBindings.push(binding);
  }
  for (const permission of clusterPermissions) {
    const group = groupOf(permission.serviceAccountName);
    const name = permissionRoleName(csv, permission, 'cluster');
    if (seenNames.has(`ClusterRole/${name}`)) continue;
    seenNames.add(`ClusterRole/${name}`);
    const [role, binding] = roleAndBinding('ClusterRole', name, csv, permission);
    group.clusterRoles.push(role);
    group.clusterRoleBindings.push(binding);
  }
  return [...groups.values()];
}

/** Flattens the groups in apply order: per service account, its ServiceAccount, Roles, RoleBindings, ClusterRoles, ClusterRoleBindings. */
export function flattenServiceAccountPermissions(groups: readonly ServiceAccountPermissions[]): KubeObject[] {
  return groups.flatMap((group) => [
    ...(group.serviceAccount ? [group.serviceAccount] : []),
    ...group.roles,
    ...group.roleBindings,
    ...group.clusterRoles,
    ...group.clusterRoleBindings,
  ]);
}

/** The objects an InstallPlan applies for the CSV's permissions, in apply order. */
export function generateCsvPermissions(csv: KubeObject): KubeObject[] {
  return flattenServiceAccountPermissions(generateCsvPermissionsByServiceAccount(csv));
}
