// The public entry of the `olm` distribution, for other distributions (apps/olm-minimal) that reuse
// its commands and runtime with their own plugin list. The CLI itself is src/cli.ts.
export { runDistribution } from './program.js';
export { olmDistribution, bootedPlugins, type Distribution } from './distribution.js';
export { controllerPlugins, defaultLeaseName, distributionPlugins, resolutionPlugins, type DistributionOptions } from './plugins.js';
export { availableControllers, selectControllers } from './controller-selection.js';
export { startControllers, type RunningControllers } from './runtime/controllers.js';
export { installOlmResources, serveCatalogs, type ServedCatalog } from './local-olm.js';
export { exampleCatalogDirectory } from './paths.js';
export type { LogLevel } from './runtime/logger.js';
