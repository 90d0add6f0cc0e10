import { catalogSourceTypes, contribute, definePlugin, propertyTypes } from '@olm/core';
import { builtInPropertyTypes } from './property-types.js';
import { loadCatalog } from './build-catalog.js';
import { createCatalogSourceTypes, type GrpcSourceTypeOptions } from './sources/index.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export interface RegistryPluginOptions {
  /** The `grpc` source type: its registry client, and the registry Pods of image catalogs (images, user, Service routing). */
  readonly grpc?: GrpcSourceTypeOptions;
}

/**
 * The registry plugin: contributes the built-in `olm.*` property types and the catalog source
 * types (`grpc`, with the registry Pods of image catalogs; `configmap`, `internal`, read through the
 * caller's client; `fbc-directory`) to the kernel. The catalog library works without it; this only wires it.
 */
export function createRegistryPlugin(options: RegistryPluginOptions = {}) {
  return definePlugin({
    id: 'registry',
    version: packageJson.version,
    provides: [propertyTypes, catalogSourceTypes],
    init: () => ({
      provide: [
        ...builtInPropertyTypes.map((propertyType) => contribute(propertyTypes, propertyType)),
        ...createCatalogSourceTypes({ loadDirectory: (directory) => loadCatalog(directory), ...(options.grpc ? { grpc: options.grpc } : {}) }).map((sourceType) =>
          contribute(catalogSourceTypes, sourceType),
        ),
      ],
    }),
  });
}

/** The registry plugin with default options. */
export const registryPlugin = createRegistryPlugin();
