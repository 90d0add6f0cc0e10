import type { LazyPlugin } from './lazy-plugin.js';
import { distributionPlugins, resolutionPlugins, type DistributionOptions } from './plugins.js';
import { cliVersion } from './version.js';

/**
 * What makes a distribution: its name and version (as `--help` and `version` print them) and its
 * plugin lists. The commands take one of these, so a second distribution is a plugin list and a
 * three-line `cli.ts` (see `apps/olm-minimal`), not a copy of the commands.
 */
export interface Distribution {
  /** The command name: `olm`, `olm-minimal`. */
  readonly name: string;
  readonly version: string;
  /** One line for `--help`. */
  readonly description?: string;
  /** The plugins offline commands boot (`resolve`), imported when booted (`lazyPlugin`). */
  readonly resolutionPlugins: readonly LazyPlugin[];
  /** The plugins `up` and `run` boot, imported when booted. */
  distributionPlugins(options: DistributionOptions): LazyPlugin[];
  /**
   * Whether `up` serves OLM v0's catalog APIs: its catalogs as CatalogSources and the packageserver's
   * PackageManifests (default true). A v1-only distribution serves its catalogs as ClusterCatalogs alone.
   */
  readonly v0Apis?: boolean;
}

/** This app's distribution: `src/plugins.ts`. */
export const olmDistribution: Distribution = {
  name: 'olm',
  version: cliVersion,
  description: 'Operator Lifecycle Manager: install, upgrade and keep operators consistent on a Kubernetes cluster',
  resolutionPlugins,
  distributionPlugins,
};

/** The plugins a distribution boots with default options, as `version` lists them. */
export function bootedPlugins(distribution: Distribution): LazyPlugin[] {
  return distribution.distributionPlugins({ namespace: 'olm', leaderElection: true });
}
