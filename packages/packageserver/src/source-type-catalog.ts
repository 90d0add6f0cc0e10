import type { CatalogSource } from '@olm/api';
import type { CatalogSourceType } from '@olm/core';
import { createRegistryIndex } from '@olm/registry';
import { indexQueries } from './configmap-catalog.js';
import type { PackageQueries } from './read-registry.js';

/**
 * Reads a CatalogSource's catalog now through a booted catalog source type (the kernel's
 * `catalogSourceTypes` point, as the catalog operator opens it): opens a connection, loads the
 * whole catalog, indexes it as a registry would serve it and closes the connection. Throws with the
 * source type's message when the catalog cannot be read.
 */
export async function readSourceTypeCatalog(type: CatalogSourceType, source: CatalogSource): Promise<PackageQueries> {
  const connection = await type.open({
    namespace: source.metadata?.namespace ?? '',
    name: source.metadata?.name ?? '',
    spec: { ...source.spec },
  });
  try {
    return indexQueries(createRegistryIndex(await connection.load()));
  } finally {
    await connection.close();
  }
}
