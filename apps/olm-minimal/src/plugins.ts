import type { Plugin } from '@olm/core';
import { controllerPlugins, type DistributionOptions } from '@olm/olm';
import { rbacPlugin } from '@olm/plugin-rbac';
import { satCdclPlugin } from '@olm/plugin-sat-cdcl';
import { registryPlugin } from '@olm/registry';
import { resolverPlugin } from '@olm/resolver';

/**
 * This distribution's composition: apps/olm's list with two changes, and no other package edited.
 * - SAT backend: `satCdclPlugin` (@olm/plugin-sat-cdcl) instead of logic-solver.
 * - No `plugin-cel`: bundles whose `olm.constraint` uses `cel` fail resolution, saying so.
 */
export const resolutionPlugins: readonly Plugin[] = [registryPlugin, resolverPlugin, satCdclPlugin, rbacPlugin];

/** What `olm-minimal up` and `olm-minimal run` boot: the above plus apps/olm's controllers. */
export function distributionPlugins(options: DistributionOptions): Plugin[] {
  return [...resolutionPlugins, ...controllerPlugins(options)];
}
