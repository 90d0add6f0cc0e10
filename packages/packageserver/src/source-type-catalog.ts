import type { CatalogSource } from '@olm/api';
import type { CatalogSourceType, KubeClient } from '@olm/core';
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
 * Reads a CatalogSource's catalog now through its booted catalog source type (the kernel's
 * `catalogSourceTypes` point, as the catalog operator opens it): opens a connection with `spec` (where
 * the type's workload says the catalog is served, else the CatalogSource's own) and `client`, loads the
 * whole catalog, indexes it as a registry would serve it and closes the connection. Throws with the
 * source type's message when the catalog cannot be read.
 */
export async function readSourceTypeCatalog(
  type: CatalogSourceType,
  source: CatalogSource,
  options: { readonly spec?: Readonly<Record<string, unknown>>; readonly client?: KubeClient } = {},
): Promise<PackageQueries> {
  const connection = await type.open({
    namespace: source.metadata?.namespace ?? '',
    name: source.metadata?.name ?? '',
    spec: options.spec ?? { ...source.spec },
    ...(options.client ? { client: options.client } : {}),
  });
  try {
    return indexQueries(createRegistryIndex(await connection.load()));
  } finally {
    await connection.close();
  }
}
