import type { KubeClient } from '@olm/controller-runtime';
import { loadKubeconfig, namespaceFor, type ClusterFlags } from './kubeconfig.js';

/** The flags of a command that works in one namespace of a cluster (`--kubeconfig`, `--context`, `-n`). */
export interface NamespacedCommandOptions extends ClusterFlags {
  readonly namespace?: string;
}

export interface ClusterSession {
  readonly client: KubeClient;
  /** `-n`, else the context's namespace, else the command's default. */
  readonly namespace: string;
  /** The kubeconfig context in use. */
  readonly context: string;
  close(): void;
}

/** Loads the kubeconfig as kubectl does and opens a client on it; the Kubernetes client is imported only now. */
export async function openClusterSession(options: NamespacedCommandOptions, defaultNamespace: string): Promise<ClusterSession> {
  const loaded = await loadKubeconfig(options);
  const { KubeClient } = await import('@olm/controller-runtime');
  const client = new KubeClient({ kubeconfig: loaded.kubeconfig });
  return { client, namespace: namespaceFor(options.namespace, loaded, defaultNamespace), context: loaded.context, close: () => client.close() };
}

/** Runs `work` with a session and closes it afterwards. */
export async function withClusterSession<T>(options: NamespacedCommandOptions, defaultNamespace: string, work: (session: ClusterSession) => Promise<T>): Promise<T> {
  const session = await openClusterSession(options, defaultNamespace);
  try {
    return await work(session);
  } finally {
    session.close();
  }
}
