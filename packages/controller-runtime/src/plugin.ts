import { definePlugin, kubeClient, logger, metrics, reconcilers, type Plugin } from '@olm/core';
import type { Registry } from 'prom-client';
import { KubeClient } from './kube-client.js';
import { createManager, type LeaderElectionOptions, type Manager, type ManagerOptions } from './manager.js';

export interface ControllerRuntimePluginOptions
  extends Pick<ManagerOptions, 'resyncPeriodMs' | 'namespace' | 'namespaces' | 'additionalNamespaces' | 'cacheSyncTimeoutMs' | 'gracefulShutdownTimeoutMs'> {
  /**
   * The Lease that elects the one replica that reconciles. Default: `olm-controller-runtime` in the
   * kubeconfig context's namespace (or `default`). `false` runs reconcilers on every replica.
   */
  readonly leaderElection?: Partial<LeaderElectionOptions> | false;
}

/**
 * On start, runs every reconciler contributed to the `reconcilers` point against the cluster of
 * the `kubeClient` point, with leader election; logs to the `logger` point and counts into the
 * `metrics` point when they are provided. On stop, drains in-flight reconciles and releases the lease.
 */
export function createControllerRuntimePlugin(options: ControllerRuntimePluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-runtime',
    version: '0.1.0',
    requires: [kubeClient],
    register(context) {
      let manager: Manager | undefined;
      let client: KubeClient | undefined;
      context.onStart(async (extensions) => {
        const connection = extensions.get(kubeClient);
        client = new KubeClient({ kubeconfig: connection.kubeconfig, context: connection.context });
        const { leaderElection: election, ...managerOptions } = options;
        manager = createManager({
          ...managerOptions,
          client,
          logger: extensions.find(logger),
          // The core contract is the part of prom-client's Registry that plugins use.
          registry: extensions.find(metrics) as Registry | undefined,
          leaderElection:
            election === false
              ? undefined
              : { name: 'olm-controller-runtime', namespace: client.defaultNamespace, ...election },
        });
        for (const reconciler of extensions.get(reconcilers).values()) manager.add(reconciler);
        await manager.start();
      });
      context.onStop(async () => {
        await manager?.stop();
        client?.close();
      });
    },
  });
}

/** The plugin with default options (leader election on). */
export const controllerRuntimePlugin = createControllerRuntimePlugin();
