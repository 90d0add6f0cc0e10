import type { CatalogSource } from '@olm/api';
import type { CatalogSourceType } from '@olm/core';
import { createRegistryIndex, type RegistryIndex } from '@olm/registry';
import type { PackageQueries } from './read-registry.js';

/** The registry queries answered from an index built in-process (what `opm serve` answers over gRPC). */
export function indexQueries(index: RegistryIndex): PackageQueries {
  return {
    listPackages: async () => index.listPackages(),
    getPackage: async (name) => index.getPackage(name),
    getBundleForChannel: async (packageName, channelName) => index.getBundleForChannel(packageName, channelName),
    async *listBundles() {
      yield* index.listBundles();
    },
  };
}

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
