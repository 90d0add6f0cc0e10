import type { Plugin } from '@olm/core';
import { createControllerCatalogPlugin } from '@olm/controller-catalog';
import { createControllerCsvPlugin } from '@olm/controller-csv';
import { createControllerRuntimePlugin } from '@olm/controller-runtime';
import { celPlugin } from '@olm/plugin-cel';
import { rbacPlugin } from '@olm/plugin-rbac';
import { satLogicSolverPlugin } from '@olm/plugin-sat-logic-solver';
import { registryPlugin } from '@olm/registry';
import { resolverPlugin } from '@olm/resolver';
import { usageError } from './cli-errors.js';

/** The plugins that need no cluster: catalogs, resolution, constraint kinds and RBAC policy (`olm resolve`). */
export const resolutionPlugins: readonly Plugin[] = [registryPlugin, resolverPlugin, satLogicSolverPlugin, celPlugin, rbacPlugin];

/** What a running distribution is told at start (from `olm run` / `olm up` flags). */
export interface DistributionOptions {
  /** Where OLM runs: its leader-election Lease and the global catalog namespace. */
  readonly namespace: string;
  /**
   * Reconcile only this namespace (all when empty). A list of one: the controller runtime caches
   * one namespace or all of them, so a longer list is refused rather than widened to all.
   */
  readonly watchNamespaces?: readonly string[];
  /** Elect one active replica through a Lease (off for a single local process). */
  readonly leaderElection: boolean;
  /** The leader-election Lease; default `olm-controllers`. `olm run --controllers` names one per controller set. */
  readonly leaseName?: string;
  /** Registries bundle images are pulled from over plain http (besides localhost, always allowed). */
  readonly insecureRegistries?: readonly string[];
}

/** The Lease the controllers elect a leader on when every controller runs in one process. */
export const defaultLeaseName = 'olm-controllers';

/**
 * The controller runtime and the CSV and catalog controllers, configured from the run/up flags.
 * Exported so that other distributions (`apps/olm-minimal`) reuse it and only change the rest.
 */
export function controllerPlugins(options: DistributionOptions): Plugin[] {
  const watchNamespace = singleWatchNamespace(options.watchNamespaces ?? []);
  return [
    createControllerRuntimePlugin({
      leaderElection: options.leaderElection ? { namespace: options.namespace, name: options.leaseName ?? defaultLeaseName } : false,
      ...(watchNamespace !== undefined ? { namespace: watchNamespace } : {}),
    }),
    createControllerCsvPlugin(),
    createControllerCatalogPlugin({
      globalCatalogNamespace: options.namespace,
      ...(options.insecureRegistries?.length ? { insecureRegistries: options.insecureRegistries } : {}),
    }),
  ];
}

/** The one namespace to watch, or undefined for all; refuses a list it cannot honour. */
export function singleWatchNamespace(namespaces: readonly string[]): string | undefined {
  const distinct = [...new Set(namespaces)];
  if (distinct.length > 1) {
    throw usageError(
      `--watch-namespaces: got ${distinct.length} namespaces (${distinct.join(', ')}), but the controllers watch either one namespace or all of them: ` +
        'pass one namespace, or leave the flag out to watch every namespace',
    );
  }
  return distinct[0];
}

/**
 * The composition root: the one list of plugins this distribution boots.
 * A platform team edits this list (or writes its own) to swap CEL support, the SAT backend
 * or the RBAC generator; no other package changes. Order does not matter: the kernel sorts
 * plugins by their dependencies. `apps/olm-minimal` shows a second composition.
 */
export function distributionPlugins(options: DistributionOptions): Plugin[] {
  return [...resolutionPlugins, ...controllerPlugins(options)];
}

/** The plugins with default options, as `olm version` lists them. */
export const plugins: readonly Plugin[] = distributionPlugins({ namespace: 'olm', leaderElection: true });
