import type { Plugin } from '@olm/core';
import { createControllerCatalogPlugin } from '@olm/controller-catalog';
import { createControllerCsvPlugin } from '@olm/controller-csv';
import { createControllerRuntimePlugin } from '@olm/controller-runtime';
import { celPlugin } from '@olm/plugin-cel';
import { rbacPlugin } from '@olm/plugin-rbac';
import { satLogicSolverPlugin } from '@olm/plugin-sat-logic-solver';
import { registryPlugin } from '@olm/registry';
import { resolverPlugin } from '@olm/resolver';

/** The plugins that need no cluster: catalogs, resolution, constraint kinds and RBAC policy (`olm resolve`). */
export const resolutionPlugins: readonly Plugin[] = [registryPlugin, resolverPlugin, satLogicSolverPlugin, celPlugin, rbacPlugin];

/** What a running distribution is told at start (from `olm run` / `olm up` flags). */
export interface DistributionOptions {
  /** Where OLM runs: its leader-election Lease and the global catalog namespace. */
  readonly namespace: string;
  /** Reconcile only these namespaces (all when empty). */
  readonly watchNamespaces?: readonly string[];
  /** Elect one active replica through a Lease (off for a single local process). */
  readonly leaderElection: boolean;
}

/**
 * The composition root: the one list of plugins this distribution boots.
 * A platform team edits this list (or writes its own) to swap CEL support, the SAT backend
 * or the RBAC generator; no other package changes. Order does not matter: the kernel sorts
 * plugins by their dependencies. `apps/olm-minimal` shows a second composition.
 */
export function distributionPlugins(options: DistributionOptions): Plugin[] {
  const watchNamespace = options.watchNamespaces?.length === 1 ? options.watchNamespaces[0] : undefined;
  return [
    ...resolutionPlugins,
    createControllerRuntimePlugin({
      leaderElection: options.leaderElection ? { namespace: options.namespace, name: 'olm-controllers' } : false,
      ...(watchNamespace !== undefined ? { namespace: watchNamespace } : {}),
    }),
    createControllerCsvPlugin(),
    createControllerCatalogPlugin({ globalCatalogNamespace: options.namespace }),
  ];
}

/** The plugins with default options, as `olm version` lists them. */
export const plugins: readonly Plugin[] = distributionPlugins({ namespace: 'olm', leaderElection: true });
