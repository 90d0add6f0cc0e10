import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { inputError, usageError } from './cli-errors.js';

export interface ClusterFlags {
  readonly kubeconfig?: string;
  readonly inCluster?: boolean;
}

/** The kubeconfig text to use: `--kubeconfig`, the pod's service account (`--in-cluster`), or $KUBECONFIG. */
export async function readKubeconfig(flags: ClusterFlags): Promise<string> {
  if (flags.inCluster) {
    const config = new KubeConfig();
    try {
      config.loadFromCluster();
    } catch (error) {
      throw inputError(`--in-cluster: cannot read the pod's service account: ${(error as Error).message}`, error);
    }
    return config.exportConfig();
  }
  const path = flags.kubeconfig ?? process.env.KUBECONFIG;
  if (!path) throw usageError('no cluster given: pass --kubeconfig FILE, set KUBECONFIG, or run in a pod with --in-cluster');
  try {
    return await readFile(resolve(path), 'utf8');
  } catch (error) {
    throw inputError(`cannot read kubeconfig ${path}: ${(error as Error).message}`, error);
  }
}
