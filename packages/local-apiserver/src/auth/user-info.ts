/**
 * Who a request acts as, after authentication and impersonation: kube-apiserver's `user.Info`, and
 * the fixed names and groups Kubernetes gives users and ServiceAccounts.
 */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** Members may do anything (kube-apiserver's privileged group, bound to `cluster-admin` too). */
export const systemMasters = 'system:masters';
export const systemAuthenticated = 'system:authenticated';
export const systemUnauthenticated = 'system:unauthenticated';
export const anonymousUser = 'system:anonymous';

const serviceAccountPrefix = 'system:serviceaccount:';

/** `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${serviceAccountPrefix}${namespace}:${name}`;
}

/** The namespace and name of a ServiceAccount user name, or undefined for any other name. */
export function parseServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountPrefix)) return undefined;
  const parts = username.slice(serviceAccountPrefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0] ?? '', name: parts[1] ?? '' };
}

/** The groups every ServiceAccount of a namespace is in (before `system:authenticated`). */
export function serviceAccountGroups(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
}

/** Adds `system:authenticated` unless present, as kube-apiserver does for every authenticated user. */
export function withAuthenticatedGroup(groups: readonly string[]): string[] {
  return groups.includes(systemAuthenticated) ? [...groups] : [...groups, systemAuthenticated];
}

export function isPrivileged(user: UserInfo): boolean {
  return user.groups.includes(systemMasters);
}

/** Who a request without a credential is, when anonymous requests are allowed (kube-apiserver's). */
export const anonymous: UserInfo = { username: anonymousUser, groups: [systemUnauthenticated] };

/** The admin of kubeadm and kind clusters, whom the server's admin token authenticates. */
export const adminUser: UserInfo = { username: 'kubernetes-admin', groups: [systemMasters, systemAuthenticated] };
