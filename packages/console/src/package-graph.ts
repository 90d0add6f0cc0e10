import { Kinds } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import type { CatalogBundle, CatalogChannel, CatalogPackage, ChannelEntry, DeprecationEntry } from '@olm/core';
import { describeError } from '@olm/core';
import type { ChannelGraph } from '@olm/registry';
import { packageManifestKind, registryAddress } from './catalog-views.js';
import type { Json } from './json.js';

export interface PackageGraphRequest {
  readonly namespace: string;
  readonly packageName: string;
  readonly catalog: string;
  readonly catalogNamespace: string;
}

export interface GraphLimits {
  /** Deadline of the registry calls that read the package's bundles, in ms. */
  readonly registryDeadlineMs: number;
  /** Most ListBundles messages read from a catalog's registry for one picture. */
  readonly registryMaxMessages: number;
  /** Most ListBundles bytes read from a catalog's registry for one picture. */
  readonly registryMaxBytes: number;
}

export interface PackageGraph {
  readonly svg: string;
  /** `registry`: every edge, read from the catalog's registry; `packagemanifest`: versions and deprecations only. */
  readonly source: 'registry' | 'packagemanifest';
  readonly installed?: string;
  readonly note?: string;
}

/**
 * The update graph of a package as the same picture `olm catalog graph --format svg` draws, with the
 * version installed in the namespace marked. Edges (replaces, skips, skipRange) are not in the
 * PackageManifest API, so they are read from the catalog's registry (the CatalogSource's address, read
 * with the user's identity first); when that cannot be reached from here, the picture has the
 * PackageManifest's entries, versions and deprecations without edges, and says so.
 */
export async function packageGraph(client: KubeClient, request: PackageGraphRequest, limits: GraphLimits): Promise<PackageGraph> {
  const { renderSvg } = await import('@olm/registry');
  const [source, subscriptions] = await Promise.all([
    client.get<Json>({ ...Kinds.catalogSource, name: request.catalog, namespace: request.catalogNamespace }),
    client.list<Json>(Kinds.subscription, { namespace: request.namespace }),
  ]);
  const installed = subscriptions.items.find(
    (subscription) => subscription.spec?.name === request.packageName && subscription.spec?.source === request.catalog && subscription.spec?.sourceNamespace === request.catalogNamespace,
  )?.status?.installedCSV as string | undefined;
  const marked = installed ? { installed } : {};
  const address = registryAddress(source);
  let problem = `CatalogSource ${request.catalogNamespace}/${request.catalog} has no registry address`;
  if (address) {
    try {
      const graphs = await graphsFromRegistry(address, request.packageName, limits);
      return { svg: renderSvg(graphs, marked), source: 'registry', ...marked };
    } catch (error) {
      problem = `its registry ${address} could not be read from here (${describeError(error)})`;
    }
  }
  const manifest = await client.get<Json>({ ...packageManifestKind, name: request.packageName, namespace: request.namespace });
  return {
    svg: renderSvg(graphsFromManifest(manifest), marked),
    source: 'packagemanifest',
    ...marked,
    note: `upgrade edges are not shown: ${problem}; the PackageManifest API carries versions and deprecations only`,
  };
}

async function graphsFromRegistry(address: string, packageName: string, limits: GraphLimits): Promise<ChannelGraph[]> {
  const { apiBundleToCatalogBundle, channelGraph, createRegistryClient } = await import('@olm/registry');
  const registry = createRegistryClient(address, { deadlineMs: limits.registryDeadlineMs, maxStreamMessages: limits.registryMaxMessages, maxStreamBytes: limits.registryMaxBytes });
  try {
    const apiPackage = await registry.getPackage(packageName);
    const entries = new Map<string, ChannelEntry[]>();
    const bundles = new Map<string, CatalogBundle>();
    const deprecations: DeprecationEntry[] = apiPackage.deprecation ? [{ reference: { schema: 'olm.package' }, message: apiPackage.deprecation.message }] : [];
    for (const channel of apiPackage.channels) {
      if (channel.deprecation) deprecations.push({ reference: { schema: 'olm.channel', name: channel.name }, message: channel.deprecation.message });
    }
    for await (const bundle of registry.listBundles()) {
      if (bundle.packageName !== packageName) continue;
      const entry: ChannelEntry = {
        name: bundle.csvName,
        ...(bundle.replaces ? { replaces: bundle.replaces } : {}),
        ...(bundle.skips.length > 0 ? { skips: bundle.skips } : {}),
        ...(bundle.skipRange ? { skipRange: bundle.skipRange } : {}),
      };
      entries.set(bundle.channelName, [...(entries.get(bundle.channelName) ?? []), entry]);
      if (!bundles.has(bundle.csvName)) {
        bundles.set(bundle.csvName, apiBundleToCatalogBundle(bundle).bundle);
        if (bundle.deprecation) deprecations.push({ reference: { schema: 'olm.bundle', name: bundle.csvName }, message: bundle.deprecation.message });
      }
    }
    const channels = new Map<string, CatalogChannel>(apiPackage.channels.map((channel) => [channel.name, { name: channel.name, package: packageName, entries: entries.get(channel.name) ?? [] }]));
    const catalogPackage: CatalogPackage = { name: packageName, defaultChannel: apiPackage.defaultChannelName, channels, bundles, deprecations };
    return [...channels.values()].map((channel) => channelGraph(catalogPackage, channel));
  } finally {
    registry.close();
  }
}

function graphsFromManifest(manifest: Json): ChannelGraph[] {
  const packageName = String(manifest.status?.packageName ?? manifest.metadata!.name);
  return ((manifest.status?.channels ?? []) as Json[]).map((channel) => {
    const entries = (channel.entries ?? []) as Json[];
    const versions: Record<string, string> = {};
    const deprecated: Record<string, string> = {};
    for (const entry of entries) {
      if (entry.version) versions[entry.name] = String(entry.version);
      if (entry.deprecation?.message) deprecated[entry.name] = String(entry.deprecation.message);
    }
    return {
      package: packageName,
      channel: String(channel.name),
      head: String(channel.currentCSV ?? ''),
      nodes: entries.map((entry) => String(entry.name)),
      edges: [],
      versions,
      deprecations: {
        entries: deprecated,
        ...(channel.deprecation?.message ? { channel: String(channel.deprecation.message) } : {}),
        ...(manifest.status?.deprecation?.message ? { package: String(manifest.status.deprecation.message) } : {}),
      },
    };
  });
}
