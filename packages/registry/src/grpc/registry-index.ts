import { OlmError } from '@olm/core';
import { goQuote } from '@olm/go-format';
import type { CatalogContent, CatalogPackage, ChannelEntry } from '@olm/core';
import type { ApiBundle, ApiChannelEntry, ApiDeprecation, ApiGvkQuery, ApiPackage } from './api-types.js';
import { RegistryGrpcErrorCodes, queryError } from './errors.js';
import { apiBundleWithoutManifests, bundleManifests, deprecationOf } from './model-to-api.js';
import type { ApiManifests } from './model-to-api.js';

/**
 * The queries of `api.Registry` over one catalog, with `opm serve`'s semantics and error messages.
 * Where upstream's order is unspecified (Go map iteration) this one is sorted by name, so answers
 * are deterministic. Errors are `OLM_REGISTRY_QUERY_FAILED` with upstream's message verbatim.
 */
export interface RegistryIndex {
  listPackages(): string[];
  getPackage(name: string): ApiPackage;
  getBundle(packageName: string, channelName: string, csvName: string): ApiBundle;
  getBundleForChannel(packageName: string, channelName: string): ApiBundle;
  getChannelEntriesThatReplace(csvName: string): ApiChannelEntry[];
  getBundleThatReplaces(csvName: string, packageName: string, channelName: string): ApiBundle;
  getChannelEntriesThatProvide(query: ApiGvkQuery): ApiChannelEntry[];
  getLatestChannelEntriesThatProvide(query: ApiGvkQuery): ApiChannelEntry[];
  getDefaultBundleThatProvides(query: ApiGvkQuery): ApiBundle;
  /** One message per (package, channel, bundle); csvJson/object dropped when bundlePath is set. */
  listBundles(): Iterable<ApiBundle>;
}

interface IndexedChannel {
  readonly name: string;
  readonly head: string;
  /** Entries by bundle name, in name order. */
  readonly entries: ReadonlyMap<string, ChannelEntry>;
  /** API messages without manifests (see `manifests`). */
  readonly bundles: ReadonlyMap<string, ApiBundle>;
  readonly deprecation?: ApiDeprecation;
}

interface IndexedPackage {
  readonly name: string;
  readonly defaultChannel: string;
  readonly channels: ReadonlyMap<string, IndexedChannel>;
  readonly deprecation?: ApiDeprecation;
  /** A bundle's manifests, built on first use and kept (most answers never need them). */
  manifests(bundleName: string): ApiManifests;
}

/** Builds the index; throws `OLM_REGISTRY_INVALID_CATALOG` when a package cannot be served. */
export function createRegistryIndex(catalog: CatalogContent): RegistryIndex {
  const packages = new Map<string, IndexedPackage>();
  for (const name of [...catalog.packages.keys()].sort()) {
    const pkg = catalog.packages.get(name);
    if (!pkg) continue;
    try {
      packages.set(name, indexPackage(pkg));
    } catch (error) {
      throw new OlmError(RegistryGrpcErrorCodes.invalidCatalog, `process package "${name}": ${(error as Error).message}`, {
        cause: error,
        details: { package: name },
      });
    }
  }

  const packageOf = (name: string): IndexedPackage => {
    const pkg = packages.get(name);
    if (!pkg) throw queryError(`package "${name}" not found`);
    return pkg;
  };
  const channelOf = (pkg: IndexedPackage, channelName: string): IndexedChannel => {
    const channel = pkg.channels.get(channelName);
    if (!channel) throw queryError(`package "${pkg.name}", channel "${channelName}" not found`);
    return channel;
  };
  const trimmed = (bundle: ApiBundle): ApiBundle => ({
    ...bundle,
    ...packageOf(bundle.packageName).manifests(bundle.csvName),
    replaces: '',
    skips: [],
  });
  const bundleOf = (channel: IndexedChannel, name: string): ApiBundle => {
    const bundle = channel.bundles.get(name);
    if (!bundle) throw queryError(`bundle "${name}" not found in channel "${channel.name}"`, 13);
    return bundle;
  };
  const provides = (bundle: ApiBundle, query: ApiGvkQuery): boolean =>
    bundle.providedApis.some((gvk) => gvk.group === query.group && gvk.version === query.version && gvk.kind === query.kind);
  const notProvided = (query: ApiGvkQuery): OlmError =>
    queryError(`no channel entries found that provide group:${goQuote(query.group)} version:${goQuote(query.version)} kind:${goQuote(query.kind)}`);

  const getBundle = (packageName: string, channelName: string, csvName: string): ApiBundle => {
    const pkg = packageOf(packageName);
    const channel = channelOf(pkg, channelName);
    if (!channel.entries.has(csvName)) {
      throw queryError(`package "${packageName}", channel "${channelName}", bundle "${csvName}" not found`);
    }
    return trimmed(bundleOf(channel, csvName));
  };

  const latestEntries = (query: ApiGvkQuery): ApiChannelEntry[] => {
    const found: ApiChannelEntry[] = [];
    for (const pkg of packages.values()) {
      for (const channel of pkg.channels.values()) {
        const head = channel.entries.get(channel.head);
        if (head && provides(bundleOf(channel, head.name), query)) {
          found.push(...entriesForBundle(pkg.name, channel, head, false));
        }
      }
    }
    if (found.length === 0) throw notProvided(query);
    return found;
  };

  return {
    listPackages: () => [...packages.keys()],
    getPackage(name) {
      const pkg = packageOf(name);
      return {
        name: pkg.name,
        channels: [...pkg.channels.values()].map((channel) => ({
          name: channel.name,
          csvName: channel.head,
          ...(channel.deprecation ? { deprecation: channel.deprecation } : {}),
        })),
        defaultChannelName: pkg.defaultChannel,
        ...(pkg.deprecation ? { deprecation: pkg.deprecation } : {}),
      };
    },
    getBundle,
    getBundleForChannel(packageName, channelName) {
      const channel = channelOf(packageOf(packageName), channelName);
      return trimmed(bundleOf(channel, channel.head));
    },
    getChannelEntriesThatReplace(csvName) {
      const found: ApiChannelEntry[] = [];
      for (const pkg of packages.values()) {
        for (const channel of pkg.channels.values()) {
          for (const entry of channel.entries.values()) {
            const replaces = entry.replaces ?? '';
            const row = { packageName: pkg.name, channelName: channel.name, bundleName: entry.name, replaces };
            if (replaces === csvName) found.push(row);
            // Upstream quirk: an entry found through `skips` reports the bundle's own `replaces`.
            for (const skip of entry.skips ?? []) if (skip === csvName && skip !== replaces) found.push(row);
          }
        }
      }
      if (found.length === 0) throw queryError(`no channel entries found that replace ${csvName}`);
      return found;
    },
    getBundleThatReplaces(csvName, packageName, channelName) {
      const pkg = packages.get(packageName);
      // Upstream leaves this one package name unquoted.
      if (!pkg) throw queryError(`package ${packageName} not found`);
      const channel = channelOf(pkg, channelName);
      for (const entry of channel.entries.values()) {
        if (entry.replaces === csvName || (entry.skips ?? []).includes(csvName)) return trimmed(bundleOf(channel, entry.name));
      }
      throw queryError(`no entry found for package "${packageName}", channel "${channelName}"`);
    },
    getChannelEntriesThatProvide(query) {
      const found: ApiChannelEntry[] = [];
      for (const pkg of packages.values()) {
        for (const channel of pkg.channels.values()) {
          for (const entry of channel.entries.values()) {
            if (provides(bundleOf(channel, entry.name), query)) found.push(...entriesForBundle(pkg.name, channel, entry, true));
          }
        }
      }
      if (found.length === 0) throw notProvided(query);
      return found;
    },
    getLatestChannelEntriesThatProvide: latestEntries,
    getDefaultBundleThatProvides(query) {
      // Stable sort by package name, as upstream (entries are already in package order here).
      const latest = latestEntries(query).sort((a, b) => (a.packageName < b.packageName ? -1 : a.packageName > b.packageName ? 1 : 0));
      for (const entry of latest) {
        if (entry.channelName === packages.get(entry.packageName)?.defaultChannel) {
          return getBundle(entry.packageName, entry.channelName, entry.bundleName);
        }
      }
      throw queryError(`no entry found that provides group:${goQuote(query.group)} version:${goQuote(query.version)} kind:${goQuote(query.kind)}`);
    },
    *listBundles() {
      for (const pkg of packages.values()) {
        for (const channel of pkg.channels.values()) {
          for (const bundle of channel.bundles.values()) {
            yield bundle.bundlePath === '' ? { ...bundle, ...pkg.manifests(bundle.csvName) } : bundle;
          }
        }
      }
    },
  };
}

/** An entry, then one per skip (not its replaces; only skips inside the channel unless `anySkip`). */
function entriesForBundle(packageName: string, channel: IndexedChannel, entry: ChannelEntry, anySkip: boolean): ApiChannelEntry[] {
  const replaces = entry.replaces ?? '';
  const rows: ApiChannelEntry[] = [{ packageName, channelName: channel.name, bundleName: entry.name, replaces }];
  for (const skip of entry.skips ?? []) {
    if (skip !== replaces && (anySkip || channel.entries.has(skip))) {
      rows.push({ packageName, channelName: channel.name, bundleName: entry.name, replaces: skip });
    }
  }
  return rows;
}

function indexPackage(pkg: CatalogPackage): IndexedPackage {
  const channels = new Map<string, IndexedChannel>();
  // The API message of a bundle is built once; other channels share its parts.
  const firstSeen = new Map<string, ApiBundle>();
  for (const channelName of [...pkg.channels.keys()].sort()) {
    const channel = pkg.channels.get(channelName);
    if (!channel) continue;
    const entries = new Map<string, ChannelEntry>();
    for (const entry of [...channel.entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      entries.set(entry.name, entry);
    }
    const bundles = new Map<string, ApiBundle>();
    for (const entry of entries.values()) {
      const bundle = pkg.bundles.get(entry.name);
      if (!bundle) throw new Error(`channel "${channelName}" names bundle "${entry.name}", which is not in the package`);
      const shared = firstSeen.get(entry.name);
      const apiBundle = shared
        ? {
            ...shared,
            channelName,
            skipRange: entry.skipRange ?? '',
            replaces: entry.replaces ?? '',
            skips: [...(entry.skips ?? [])],
          }
        : apiBundleWithoutManifests(pkg, channel, entry, bundle);
      if (!shared) firstSeen.set(entry.name, apiBundle);
      bundles.set(entry.name, apiBundle);
    }
    const deprecation = deprecationOf(pkg, 'olm.channel', channelName);
    channels.set(channelName, {
      name: channelName,
      head: channelHead(channelName, [...entries.values()]),
      entries,
      bundles,
      ...(deprecation ? { deprecation } : {}),
    });
  }
  const deprecation = deprecationOf(pkg, 'olm.package', undefined);
  const manifestCache = new Map<string, ApiManifests>();
  return {
    name: pkg.name,
    defaultChannel: pkg.defaultChannel,
    channels,
    ...(deprecation ? { deprecation } : {}),
    manifests(bundleName) {
      let manifests = manifestCache.get(bundleName);
      if (!manifests) {
        const bundle = pkg.bundles.get(bundleName);
        manifests = bundle ? bundleManifests(pkg, bundle) : { csvJson: '', object: [] };
        manifestCache.set(bundleName, manifests);
      }
      return manifests;
    },
  };
}

/** The one entry nothing in the channel replaces or skips (skipRange makes no edges). */
export function channelHead(channelName: string, entries: readonly ChannelEntry[]): string {
  const incoming = new Set<string>();
  for (const entry of entries) {
    if (entry.replaces) incoming.add(entry.replaces);
    for (const skip of entry.skips ?? []) incoming.add(skip);
  }
  const heads = entries.filter((entry) => !incoming.has(entry.name)).map((entry) => entry.name).sort();
  if (heads.length === 0) throw new Error(`channel "${channelName}": no channel head found in graph`);
  if (heads.length > 1) throw new Error(`channel "${channelName}": multiple channel heads found in graph: ${heads.join(', ')}`);
  return heads[0] as string;
}
