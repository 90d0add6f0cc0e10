// What other packages and apps use: the plugin, and the controller as a library. The decisions behind it
// are tested where they live (import them from their files in this package's tests).
export { catalogControllerAdditionalNamespaces } from './additional-namespaces.js';
export { createCatalogController, type CatalogController, type CatalogControllerOptions } from './catalog-controller.js';
export { createCatalogMetrics, type CatalogMetrics } from './catalog-metrics.js';
export type { StepAppliedEvent } from './controller-context.js';
export { controllerCatalogPlugin, createControllerCatalogPlugin, type ControllerCatalogPluginOptions } from './plugin.js';
