/** Who a request acts as once authenticated: kube's `user.Info`. */
export interface RequestUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export const anonymousUser: RequestUser = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Adds `system:authenticated`, as kube's authenticators do for every user they recognise. */
export function authenticated(user: RequestUser): RequestUser {
  return user.groups.includes('system:authenticated') ? user : { ...user, groups: [...user.groups, 'system:authenticated'] };
}
