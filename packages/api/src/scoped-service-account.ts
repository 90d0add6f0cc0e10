import type { ObjectReference } from './meta.js';
import type { OperatorGroup } from './operator-group.js';

/**
 * Whose rights an install in a namespace runs with (upstream's `UserDefinedServiceAccountQuerier`,
 * pkg/lib/scoped): OLM's own, the ServiceAccount an OperatorGroup names in `spec.serviceAccountName`,
 * or neither yet (an error to report and retry).
 */
export type InstallIdentity =
  | { readonly kind: 'olm' }
  | { readonly kind: 'serviceAccount'; readonly reference: ServiceAccountReference; readonly username: string }
  | { readonly kind: 'error'; readonly message: string };

export type ServiceAccountReference = ObjectReference & { readonly name: string; readonly namespace: string };

/** Upstream's querier errors, verbatim. */
export const ScopedInstallMessages = {
  noManagingGroup: 'no operator group found that is managing this namespace',
  manyManagingGroups: (count: number) => `more than one operator group(s) are managing this namespace count=${count}`,
  serviceAccountNotSynced: (serviceAccount: string, namespace: string, group: string) =>
    `please make sure the service account exists. sa=${serviceAccount} operatorgroup=${namespace}/${group}`,
} as const;

/** The user a ServiceAccount authenticates as. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * The identity for installs in the namespace of `groups` (its OperatorGroups). As upstream: only groups
 * managing namespaces (`status.namespaces` set) count, exactly one must, and a named account is used
 * once the group has synced it into `status.serviceAccountRef`. Unlike upstream, a namespace where no
 * group names an account installs with OLM's rights without looking further (upstream also refuses a
 * namespace with no or several managing groups, which resolution here already refuses).
 */
export function installIdentity(groups: readonly OperatorGroup[]): InstallIdentity {
  if (!groups.some((group) => group.spec?.serviceAccountName)) return { kind: 'olm' };
  const managing = groups.filter((group) => (group.status?.namespaces ?? []).length > 0);
  if (managing.length === 0) return { kind: 'error', message: ScopedInstallMessages.noManagingGroup };
  if (managing.length > 1) return { kind: 'error', message: ScopedInstallMessages.manyManagingGroups(managing.length) };
  const group = managing[0]!;
  const name = group.spec?.serviceAccountName;
  if (!name) return { kind: 'olm' };
  const groupNamespace = group.metadata?.namespace ?? '';
  const synced = group.status?.serviceAccountRef;
  // A reference to another account is one synced before the spec changed: not yet this one.
  if (!synced || synced.name !== name) {
    return { kind: 'error', message: ScopedInstallMessages.serviceAccountNotSynced(name, groupNamespace, group.metadata?.name ?? '') };
  }
  const reference: ServiceAccountReference = { ...synced, name, namespace: synced.namespace || groupNamespace };
  return { kind: 'serviceAccount', reference, username: serviceAccountUsername(reference.namespace, name) };
}
