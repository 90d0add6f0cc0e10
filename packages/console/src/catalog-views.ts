import { Kinds } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import type { Json } from './json.js';
import { conditionsOf, listIfServed } from './served-list.js';

export const packageManifestKind = { apiVersion: 'packages.operators.coreos.com/v1', kind: 'PackageManifest' } as const;

/** The catalogs page: CatalogSources with their connection state, and ClusterCatalogs when the v1 API is served. */
export async function catalogsView(client: KubeClient) {
  const [sources, clusterCatalogs] = await Promise.all([client.list<Json>(Kinds.catalogSource), listIfServed(client, Kinds.clusterCatalog)]);
  return {
    catalogSources: sources.items.map((source) => ({
      name: source.metadata!.name,
      namespace: source.metadata!.namespace,
      displayName: source.spec?.displayName ?? '',
      publisher: source.spec?.publisher ?? '',
      sourceType: source.spec?.sourceType ?? '',
      address: source.spec?.address ?? registryAddress(source) ?? '',
      connectionState: source.status?.connectionState?.lastObservedState ?? 'unknown',
      lastConnect: source.status?.connectionState?.lastConnect ?? '',
      message: source.status?.message ?? '',
      reason: source.status?.reason ?? '',
    })),
    clusterCatalogsServed: clusterCatalogs.served,
    clusterCatalogs: clusterCatalogs.items.map((catalog) => ({
      name: catalog.metadata!.name,
      image: catalog.spec?.source?.image?.ref ?? '',
      availability: catalog.spec?.availabilityMode ?? 'Available',
      resolvedSource: catalog.status?.resolvedSource?.image?.ref ?? '',
      conditions: conditionsOf(catalog),
    })),
  };
}

/** `host:port` of a CatalogSource's registry: `spec.address`, else the registry Service OLM made for it. */
export function registryAddress(source: Json): string | undefined {
  if (source.spec?.address) return String(source.spec.address);
  const service = source.status?.registryService;
  if (!service?.serviceName) return undefined;
  return `${service.serviceName}.${service.serviceNamespace}.svc:${service.port}`;
}

/** The packages page: the PackageManifests visible from a namespace (its own catalogs and the global ones). */
export async function packagesView(client: KubeClient, namespace: string) {
  const manifests = await listIfServed(client, packageManifestKind, { namespace });
  return {
    served: manifests.served,
    namespace,
    packages: manifests.items
      .map((manifest) => ({
        name: String(manifest.status?.packageName ?? manifest.metadata!.name),
        catalog: String(manifest.status?.catalogSource ?? ''),
        catalogNamespace: String(manifest.status?.catalogSourceNamespace ?? ''),
        catalogDisplayName: String(manifest.status?.catalogSourceDisplayName ?? ''),
        provider: String(manifest.status?.provider?.name ?? ''),
        defaultChannel: String(manifest.status?.defaultChannel ?? ''),
        description: String(manifest.status?.channels?.find((channel: Json) => channel.name === manifest.status?.defaultChannel)?.currentCSVDesc?.description ?? ''),
        deprecation: manifest.status?.deprecation?.message as string | undefined,
        channels: ((manifest.status?.channels ?? []) as Json[]).map((channel) => ({
          name: String(channel.name),
          head: String(channel.currentCSV ?? ''),
          deprecation: channel.deprecation?.message as string | undefined,
          entries: ((channel.entries ?? []) as Json[]).map((entry) => ({
            name: String(entry.name),
            ...(entry.version ? { version: String(entry.version) } : {}),
            ...(entry.deprecation?.message ? { deprecation: String(entry.deprecation.message) } : {}),
          })),
        })),
      }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.catalog.localeCompare(b.catalog)),
  };
}
