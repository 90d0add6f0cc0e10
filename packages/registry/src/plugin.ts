import { catalogSourceTypes, contribute, definePlugin, propertyTypes } from '@olm/core';
import { builtInPropertyTypes } from './property-types.js';
import { loadCatalog } from './build-catalog.js';
import { createCatalogSourceTypes } from './sources/index.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

/**
 * The registry plugin: contributes the built-in `olm.*` property types and the catalog source
 * types (`grpc`, `configmap`, `internal`, `fbc-directory`) to the kernel. The catalog library
 * works without it; this only wires it.
 */
export const registryPlugin = definePlugin({
  id: 'registry',
  version: packageJson.version,
  provides: [propertyTypes, catalogSourceTypes],
  init: () => ({
    provide: [
      ...builtInPropertyTypes.map((propertyType) => contribute(propertyTypes, propertyType)),
      // grpc, configmap/internal (no ConfigMap reader here: they report OLM_REGISTRY_SOURCE_UNAVAILABLE), fbc-directory.
      ...createCatalogSourceTypes({ loadDirectory: (directory) => loadCatalog(directory) }).map((sourceType) => contribute(catalogSourceTypes, sourceType)),
    ],
  }),
});
