import { controllerPlugins, lazyPlugin, resolverEntry, withResolutionBudget, type DistributionOptions, type LazyPlugin } from '@olm/olm';
import pluginRbacPackage from '@olm/plugin-rbac/package.json' with { type: 'json' };
import pluginSatCdclPackage from '@olm/plugin-sat-cdcl/package.json' with { type: 'json' };
import registryPackage from '@olm/registry/package.json' with { type: 'json' };

/**
 * This distribution's composition: apps/olm's list with two changes, and no other package edited.
 * - SAT backend: `satCdclPlugin` (@olm/plugin-sat-cdcl) instead of logic-solver.
 * - No `plugin-cel`: bundles whose `olm.constraint` uses `cel` fail resolution, saying so.
 * Each entry names a plugin and imports its package only when a command boots it (`lazyPlugin`).
 */
export const resolutionPlugins: readonly LazyPlugin[] = [
  lazyPlugin('registry', registryPackage.version, async () => (await import('@olm/registry')).registryPlugin),
  resolverEntry(),
  lazyPlugin('plugin-sat-cdcl', pluginSatCdclPackage.version, async () => (await import('@olm/plugin-sat-cdcl')).satCdclPlugin),
  lazyPlugin('plugin-rbac', pluginRbacPackage.version, async () => (await import('@olm/plugin-rbac')).rbacPlugin),
];

/** What `olm-minimal up` and `olm-minimal run` boot: the above plus apps/olm's controllers. */
export function distributionPlugins(options: DistributionOptions): LazyPlugin[] {
  return [...withResolutionBudget(resolutionPlugins, options), ...controllerPlugins(options)];
}
