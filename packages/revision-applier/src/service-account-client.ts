import type { ImpersonatedUser, KubeClient } from '@olm/core';
import { KubeClient as HttpKubeClient, type KubeClientOptions } from '@olm/controller-runtime';
import type { ServiceAccountReference } from './types.js';
import { RevisionErrorCodes, revisionError } from './errors.js';

/**
 * The user a ServiceAccount authenticates as. No `Impersonate-Group` is sent: kube-apiserver gives an
 * impersonated ServiceAccount its groups itself (system:serviceaccounts, system:serviceaccounts:<ns>,
 * system:authenticated), and naming them would need `impersonate` on `groups`, which lets the holder
 * impersonate system:masters.
 */
export function serviceAccountUser(account: ServiceAccountReference): ImpersonatedUser {
  if (!account?.namespace || !account.name) {
    throw revisionError(RevisionErrorCodes.invalidInput, `serviceAccount ${JSON.stringify(account ?? null)} needs a namespace and a name`, { field: 'serviceAccount' });
  }
  return {
    username: `system:serviceaccount:${account.namespace}:${account.name}`,
  };
}

/** Makes clients acting as a ServiceAccount, from `kubeConfig`'s credentials or else the admin client's. */
export function serviceAccountClients(admin: KubeClient, kubeConfig: KubeClientOptions['kubeconfig'] | undefined) {
  let base: KubeClient | undefined;
  return (account: ServiceAccountReference): KubeClient => {
    base ??= kubeConfig === undefined ? admin : new HttpKubeClient({ kubeconfig: kubeConfig });
    return base.impersonate(serviceAccountUser(account));
  };
}
