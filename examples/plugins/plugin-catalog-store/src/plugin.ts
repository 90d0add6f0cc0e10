import { catalogSourceTypes, contribute, definePlugin, type Plugin } from '@olm/core';
import { createCatalogStoreSourceType, type CatalogStoreOptions } from './catalog-store-source-type.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

/** Contributes the `catalog-store` source type to `catalogSourceTypes`: add it to a distribution's plugin list. */
export function createCatalogStorePlugin(options: CatalogStoreOptions): Plugin {
  return definePlugin({
    id: 'plugin-catalog-store',
    version: packageJson.version,
    provides: [catalogSourceTypes],
    init: () => ({ provide: [contribute(catalogSourceTypes, createCatalogStoreSourceType(options))] }),
  });
}
