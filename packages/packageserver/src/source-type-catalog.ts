import type { CatalogSource } from '@olm/api';
import type { CatalogConnection, CatalogContent, CatalogPackage, CatalogSourceType, KubeClient } from '@olm/core';
import { channelHead, createRegistryIndex, type RegistryIndex } from '@olm/registry';
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
 * catalog (`loadForManifests`), indexes it as a registry would serve it and closes the connection. Throws
 * with the source type's message when the catalog cannot be read.
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
    return indexQueries(createRegistryIndex(await loadForManifests(connection)));
  } finally {
    await connection.close();
  }
}

/**
 * The catalog as PackageManifests need it. A connection offering manifests on demand is loaded without
 * them and only each channel head's bundle is fetched (its CSV describes the package), as upstream's
 * packageserver asks a registry for the heads only: on a large catalog most of the bytes are CSVs nobody
 * shows. A head that cannot be fetched stays without its CSV (its channel is then reported as a problem).
 * Other connections are loaded whole.
 */
export async function loadForManifests(connection: CatalogConnection): Promise<CatalogContent> {
  const { loadWithoutManifests, loadBundle } = connection;
  if (!loadWithoutManifests || !loadBundle) return connection.load();
  const content = await loadWithoutManifests.call(connection);
  const packages = new Map<string, CatalogPackage>();
  for (const [name, pkg] of content.packages) {
    const bundles = new Map(pkg.bundles);
    const heads = [...pkg.channels.values()].flatMap((channel) => {
      const head = headOf(channel);
      // a bundle without an image kept its manifests
      return head !== undefined && bundles.get(head)?.image ? [{ packageName: name, channelName: channel.name, name: head }] : [];
    });
    const fetched = await Promise.all(heads.map((key) => loadBundle.call(connection, key).catch(() => undefined)));
    fetched.forEach((bundle, index) => bundle && bundles.set(heads[index]!.name, bundle));
    packages.set(name, { ...pkg, bundles });
  }
  return { ...content, packages };
}

/** The channel's head, or undefined when its graph has none (the index reports that channel). */
function headOf(channel: Parameters<typeof channelHead>[0]): string | undefined {
  try {
    return channelHead(channel).name;
  } catch {
    return undefined;
  }
}
