import { KubeClient, type ImpersonatedUser, type KubeClientOptions } from '@olm/controller-runtime';
import type { ServiceAccountReference } from './types.js';
import { RevisionErrorCodes, revisionError } from './errors.js';

/**
 * The user a ServiceAccount authenticates as, with the groups kube-apiserver gives it. They are sent
 * explicitly (`Impersonate-Group`) so any API server authorizes the same groups, which means the
 * impersonating client needs `impersonate` on `serviceaccounts` and on `groups`.
 */
export function serviceAccountUser(account: ServiceAccountReference): ImpersonatedUser {
  if (!account?.namespace || !account.name) {
    throw revisionError(RevisionErrorCodes.invalidInput, `serviceAccount ${JSON.stringify(account ?? null)} needs a namespace and a name`, { field: 'serviceAccount' });
  }
  return {
    username: `system:serviceaccount:${account.namespace}:${account.name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${account.namespace}`, 'system:authenticated'],
  };
}

/** Makes clients acting as a ServiceAccount, from `kubeConfig`'s credentials or else the admin client's. */
export function serviceAccountClients(admin: KubeClient, kubeConfig: KubeClientOptions['kubeconfig'] | undefined) {
  let base: KubeClient | undefined;
  return (account: ServiceAccountReference): KubeClient => {
    base ??= kubeConfig === undefined ? admin : new KubeClient({ kubeconfig: kubeConfig });
    return base.impersonate(serviceAccountUser(account));
  };
}
