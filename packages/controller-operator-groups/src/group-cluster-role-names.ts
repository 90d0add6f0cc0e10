import type { RbacGenerator } from '@olm/core';

export interface GroupKey {
  readonly namespace: string;
  readonly name: string;
}

/** Groups remembered at most; the oldest go first (a live one is simply indexed again when needed). */
const maxGroups = 10_000;

/**
 * Which OperatorGroup a ClusterRole belongs to by its name, for roles without OLM's owner labels: kube's
 * aggregation controller writes with server-side apply, so it recreates a role OLM just deleted holding
 * nothing but `rules`. The names are the RBAC generator's (`operatorGroupClusterRoles`, whose names depend
 * on the group's namespace and name only), indexed per group as groups are seen, live or deleted. So a
 * role is matched only by a name generated for a group of this cluster: never someone else's role, and
 * a live group's roles only ever map to that live group.
 */
export class GroupClusterRoleNames {
  private readonly roleNamesByGroup = new Map<string, readonly string[]>();
  private readonly groupsByRoleName = new Map<string, GroupKey>();

  constructor(private readonly rbac: () => RbacGenerator) {}

  /** The names of the group's roles (indexed from now on). */
  remember(group: GroupKey): readonly string[] {
    const key = `${group.namespace}/${group.name}`;
    const known = this.roleNamesByGroup.get(key);
    if (known) return known;
    const names = this.generatedNames(group);
    this.roleNamesByGroup.set(key, names);
    for (const name of names) this.groupsByRoleName.set(name, { namespace: group.namespace, name: group.name });
    if (this.roleNamesByGroup.size > maxGroups) this.forgetOldest();
    return names;
  }

  /** The group whose role this name is, among the groups remembered and `liveGroups`. */
  groupOf(roleName: string, liveGroups: Iterable<GroupKey>): GroupKey | undefined {
    const known = this.groupsByRoleName.get(roleName);
    if (known) return known;
    for (const group of liveGroups) this.remember(group);
    return this.groupsByRoleName.get(roleName);
  }

  private generatedNames(group: GroupKey): readonly string[] {
    try {
      const operatorGroup = { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { namespace: group.namespace, name: group.name } };
      return this.rbac()
        .operatorGroupClusterRoles({ operatorGroup, providedApis: [] })
        .map((role) => role.metadata.name)
        .filter((name): name is string => typeof name === 'string' && name !== '');
    } catch {
      // A group the generator refuses has no roles to recognise.
      return [];
    }
  }

  private forgetOldest(): void {
    const [key, names] = this.roleNamesByGroup.entries().next().value as [string, readonly string[]];
    this.roleNamesByGroup.delete(key);
    for (const name of names) this.groupsByRoleName.delete(name);
  }
}
