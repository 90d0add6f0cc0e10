import { definePlugin, contribute, informerCache, kubeClient, logger, metrics, optional, reconcilers, type Plugin } from '@olm/core';
import type { Registry } from 'prom-client';
import { createManager, type LeaderElectionOptions, type ManagerOptions } from './manager.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export interface ControllerRuntimePluginOptions
  extends Pick<ManagerOptions, 'resyncPeriodMs' | 'namespace' | 'namespaces' | 'additionalNamespaces' | 'metadataOnlyLabelled' | 'cacheSyncTimeoutMs' | 'gracefulShutdownTimeoutMs'> {
  /**
   * The Lease that elects the one replica that reconciles. Default: `olm-controller-runtime` in the
   * kubeconfig context's namespace (or `default`). `false` runs reconcilers on every replica.
   */
  readonly leaderElection?: Partial<LeaderElectionOptions> | false;
}

/**
 * Runs every reconciler contributed to the `reconcilers` point (so it initialises after the plugins
 * contributing them) with the shared `kubeClient`, with leader election; logs to the `logger` point and
 * counts into the `metrics` point when they are provided. Provides the `informerCache` it fills. On
 * stop, drains in-flight reconciles and releases the lease; the client stays the app's to close.
 */
export function createControllerRuntimePlugin(options: ControllerRuntimePluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-runtime',
    version: packageJson.version,
    deps: { client: kubeClient, reconcilers, logger: optional(logger), metrics: optional(metrics) },
    provides: [informerCache],
    init({ client, reconcilers: contributed, logger: log, metrics: registry }) {
      const { leaderElection: election, ...managerOptions } = options;
      const manager = createManager({
        ...managerOptions,
        client,
        ...(log ? { logger: log } : {}),
        // The core contract is the part of prom-client's Registry that plugins use.
        ...(registry ? { registry: registry as Registry } : {}),
        leaderElection: election === false ? undefined : { name: 'olm-controller-runtime', namespace: client.defaultNamespace, ...election },
      });
      for (const reconciler of contributed.values()) manager.add(reconciler);
      return {
        provide: [contribute(informerCache, manager.cache)],
        start: () => manager.start(),
        stop: () => manager.stop(),
      };
    },
  });
}

/** The plugin with default options (leader election on). */
export const controllerRuntimePlugin = createControllerRuntimePlugin();
