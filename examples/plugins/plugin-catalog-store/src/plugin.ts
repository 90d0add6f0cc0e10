import { catalogSourceTypes, contribute, definePlugin, type Plugin } from '@olm/core';
import { createCatalogStoreSourceType, type CatalogStoreOptions } from './catalog-store-source-type.js';

/** Contributes the `catalog-store` source type to `catalogSourceTypes`: add it to a distribution's plugin list. */
export function createCatalogStorePlugin(options: CatalogStoreOptions): Plugin {
  return definePlugin({
    id: 'plugin-catalog-store',
    version: '0.1.0',
    provides: [catalogSourceTypes],
    init: () => ({ provide: [contribute(catalogSourceTypes, createCatalogStoreSourceType(options))] }),
  });
}
