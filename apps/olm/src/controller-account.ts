import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { renderKubeconfig } from '@olm/local-apiserver';
import { parseAllDocuments } from 'yaml';

type Json = CachedObject & Record<string, any>;

/** The ServiceAccount deploy/10-rbac.yaml grants OLM's controllers their rights as. */
export const controllerAccount = { namespace: 'olm', name: 'olm-operator' } as const;

/**
 * Applies deploy/10-rbac.yaml (the controllers' ServiceAccount, ClusterRole and binding) as a cluster
 * admin would before starting OLM, so that a local OLM holds exactly the rights a deployed one holds.
 */
export async function applyControllerRbac(client: KubeClient, deployDirectory: string): Promise<void> {
  const file = join(deployDirectory, '10-rbac.yaml');
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read ${file} (${error.code ?? error.message}): olm up runs its controllers with the RBAC of the repository's deploy/ manifests; run it from a checkout that has them`);
  });
  const documents = parseAllDocuments(text);
  for (const document of documents) {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
    const object = document.toJS() as Json | null;
    if (object) await client.apply(object, { fieldManager: 'kubectl', force: true });
  }
}

/**
 * A kubeconfig that authenticates as a ServiceAccount with a TokenRequest token (as a Pod's projected
 * token does), for the controllers of a local OLM. The token lasts a year: `olm up` mints a new one
 * at every start.
 */
export async function serviceAccountKubeconfig(
  client: KubeClient,
  server: { readonly url: string; readonly caCertificate?: string | undefined },
  account: { readonly namespace: string; readonly name: string },
): Promise<string> {
  const issued = (await client.request({
    method: 'POST',
    path: `/api/v1/namespaces/${account.namespace}/serviceaccounts/${account.name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 365 * 24 * 3600 } },
  })) as { status?: { token?: string } };
  const token = issued.status?.token;
  if (!token) throw new Error(`the API server issued no token for ServiceAccount ${account.namespace}/${account.name}`);
  return renderKubeconfig({
    server: server.url,
    ...(server.caCertificate !== undefined ? { certificateAuthority: server.caCertificate } : {}),
    token,
    name: account.name,
    namespace: account.namespace,
  });
}
