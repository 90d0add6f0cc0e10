import { Kinds } from '@olm/api';
import type { KubeObject, PolicyRule } from '@olm/core';
import { permissionStruct, type CsvPermission } from '@olm/plugin-rbac';
import { uniqueName } from './object-names.js';

/** The RBAC of a CSV in OLM v1's shape, in apply order per kind. */
export interface RbacObjects {
  readonly serviceAccounts: KubeObject[];
  readonly clusterRoles: KubeObject[];
  readonly clusterRoleBindings: KubeObject[];
  readonly roles: KubeObject[];
  readonly roleBindings: KubeObject[];
}

export interface RbacInput {
  readonly csvName: string;
  readonly permissions: readonly CsvPermission[];
  readonly clusterPermissions: readonly CsvPermission[];
  readonly installNamespace: string;
  /** `[""]` for all namespaces. */
  readonly targetNamespaces: readonly string[];
}

/** Watching all namespaces means listing them: upstream adds this rule to permissions made cluster-wide. */
const namespacesRule: PolicyRule = { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] };

/** The service account every pod gets; bound, never created. */
const defaultServiceAccount = 'default';

/**
 * ServiceAccounts for the CSV's permissions, and its Roles/ClusterRoles bound to them, as OLM v1
 * makes them: in AllNamespaces mode `permissions` become ClusterRoles (with the namespaces rule);
 * otherwise they become Roles in each watched namespace. `clusterPermissions` are always ClusterRoles.
 * A role and its binding share the name `<csv>-<serviceAccount>-<hash of the entry>`; an entry
 * repeated verbatim yields its objects once.
 */
export function rbacObjects(input: RbacInput): RbacObjects {
  const allNamespaces = input.targetNamespaces.length === 1 && input.targetNamespaces[0] === '';
  const cluster = [
    ...input.clusterPermissions,
    ...(allNamespaces ? input.permissions.map((permission) => ({ ...permission, rules: [...(permission.rules ?? []), namespacesRule] })) : []),
  ];
  const result: RbacObjects = { serviceAccounts: serviceAccounts(input), clusterRoles: [], clusterRoleBindings: [], roles: [], roleBindings: [] };
  const seen = new Set<string>();
  const once = (key: string): boolean => {
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  if (!allNamespaces) {
    for (const namespace of input.targetNamespaces) {
      for (const permission of input.permissions) {
        const name = roleName(input.csvName, permission);
        if (!once(`Role/${namespace}/${name}`)) continue;
        result.roles.push({ ...Kinds.role, metadata: { name, namespace }, rules: permission.rules ?? [] });
        result.roleBindings.push(binding(Kinds.roleBinding, Kinds.role.kind, name, permission, input.installNamespace, namespace));
      }
    }
  }
  for (const permission of cluster) {
    const name = roleName(input.csvName, permission);
    if (!once(`ClusterRole/${name}`)) continue;
    result.clusterRoles.push({ ...Kinds.clusterRole, metadata: { name }, rules: permission.rules ?? [] });
    result.clusterRoleBindings.push(binding(Kinds.clusterRoleBinding, Kinds.clusterRole.kind, name, permission, input.installNamespace));
  }
  return result;
}

function roleName(csvName: string, permission: CsvPermission): string {
  return uniqueName(`${csvName}-${permission.serviceAccountName}`, permissionStruct(permission.serviceAccountName, permission.rules));
}

function binding(
  kind: { readonly apiVersion: string; readonly kind: string },
  roleKind: string,
  name: string,
  permission: CsvPermission,
  installNamespace: string,
  namespace?: string,
): KubeObject {
  return {
    ...kind,
    metadata: namespace === undefined ? { name } : { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name },
    subjects: [{ kind: 'ServiceAccount', name: permission.serviceAccountName, namespace: installNamespace }],
  };
}

/** One ServiceAccount per named account, in the order they first appear; none for `default`. */
function serviceAccounts(input: RbacInput): KubeObject[] {
  const names = new Set([...input.permissions, ...input.clusterPermissions].map((permission) => permission.serviceAccountName));
  names.delete(defaultServiceAccount);
  return [...names].map((name) => ({ ...Kinds.serviceAccount, metadata: { name, namespace: input.installNamespace } }));
}
