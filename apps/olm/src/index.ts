// The public entry of the `olm` distribution, for other distributions (apps/olm-minimal) that reuse
// its commands with their own plugin list. The CLI itself is src/cli.ts. It loads no plugin
// package and not the Kubernetes client; `@olm/olm/local-cluster` has the local set-up helpers.
export { runDistribution } from './program.js';
export { olmDistribution, bootedPlugins, type Distribution } from './distribution.js';
export { controllerPlugins, defaultLeaseName, distributionPlugins, resolutionPlugins, resolverEntry, withResolutionBudget, type DistributionOptions } from './plugins.js';
export { lazyPlugin, loadPlugins, type LazyPlugin } from './lazy-plugin.js';
export { availableControllers, selectControllers } from './controller-selection.js';
export { exampleCatalogDirectory } from './paths.js';
export type { LogLevel } from './runtime/log-levels.js';
