// What other packages and apps import (apps/olm, the bundle puller's and the examples' tests): the plugin, the
// controller as a library, and the namespaces a namespace-limited manager must also cache. The decisions behind
// it are tested where they live (import them from their files in this package's tests).
export { catalogControllerAdditionalNamespaces } from './catalog-sources/additional-namespaces.js';
export { createCatalogController, type CatalogController, type CatalogControllerOptions } from './catalog-controller.js';
export { createControllerCatalogPlugin, type ControllerCatalogPluginOptions } from './plugin.js';
