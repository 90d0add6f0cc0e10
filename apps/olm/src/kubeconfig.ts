import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { inputError, usageError } from './cli-errors.js';

export interface ClusterFlags {
  readonly kubeconfig?: string;
  readonly inCluster?: boolean;
  /**
   * Where the service-account files are mounted below: `/` in a pod; a directory in tests, which
   * then holds `var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}`.
   */
  readonly serviceAccountRoot?: string;
}

/** Where Kubernetes mounts a pod's service-account token, CA and namespace. */
const serviceAccountDirectory = 'var/run/secrets/kubernetes.io/serviceaccount';

/** Whether this process looks like it runs in a pod: the API server's address and a mounted token. */
function isInCluster(root: string): boolean {
  return Boolean(process.env.KUBERNETES_SERVICE_HOST && process.env.KUBERNETES_SERVICE_PORT) && existsSync(join(root, serviceAccountDirectory, 'token'));
}

/** The pod's service account as a kubeconfig, as client-go's in-cluster config (the token file is re-read as it rotates). */
async function inClusterKubeconfig(root: string): Promise<string> {
  const problems: string[] = [];
  if (!process.env.KUBERNETES_SERVICE_HOST || !process.env.KUBERNETES_SERVICE_PORT) problems.push('KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
  for (const file of ['token', 'ca.crt']) {
    const path = join(root, serviceAccountDirectory, file);
    if (!existsSync(path)) problems.push(`${path} does not exist`);
  }
  if (problems.length > 0) {
    throw inputError(`--in-cluster: this does not look like a pod with a service account: ${problems.join('; ')}. Outside a cluster pass --kubeconfig FILE instead.`);
  }
  // Imported here: commands that never reach a cluster do not load the Kubernetes client.
  const { KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  // client-node appends its absolute paths (/var/run/...) to the prefix.
  config.loadFromCluster(root === '/' ? '' : root.replace(/\/+$/, ''));
  return config.exportConfig();
}

/**
 * The kubeconfig text to use: `--kubeconfig`, the pod's service account (`--in-cluster`), $KUBECONFIG,
 * or, with none of these, the service account when running in a pod (as kubectl and client-go do).
 */
export async function readKubeconfig(flags: ClusterFlags): Promise<string> {
  const root = resolve(flags.serviceAccountRoot ?? '/');
  if (flags.inCluster) {
    if (flags.kubeconfig !== undefined) throw usageError('pass either --kubeconfig or --in-cluster, not both');
    return inClusterKubeconfig(root);
  }
  const path = flags.kubeconfig ?? process.env.KUBECONFIG;
  if (!path) {
    if (isInCluster(root)) return inClusterKubeconfig(root);
    throw usageError('no cluster given: pass --kubeconfig FILE, set KUBECONFIG, or run in a pod (with its service account mounted, or --in-cluster)');
  }
  try {
    return await readFile(resolve(path), 'utf8');
  } catch (error) {
    throw inputError(`cannot read kubeconfig ${path}: ${(error as Error).message}`, error);
  }
}
