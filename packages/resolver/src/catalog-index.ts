import type { CatalogBundle, CatalogContent, ChannelEntry, Property } from '@olm/core';
import { gvkKey, packageProperties, providedGvks } from './predicates.js';

/** One (bundle, channel) pair of a catalog: upstream's catalog entry, before it knows its catalog's name. */
export interface CatalogEntryRecord {
  readonly name: string;
  readonly package: string;
  readonly channel: string;
  readonly isDefaultChannel: boolean;
  readonly replaces?: string | undefined;
  readonly skips: readonly string[];
  readonly skipRange?: string | undefined;
  readonly version: string;
  /** The bundle's properties, with `olm.package` ensured. */
  readonly properties: readonly Property[];
  readonly isDeprecated: boolean;
}

/** Lookups over one catalog's content, built once per content object and reused across resolutions. */
export interface CatalogIndex {
  readonly entries: readonly CatalogEntryRecord[];
  readonly byPackage: ReadonlyMap<string, readonly CatalogEntryRecord[]>;
  readonly byChannel: ReadonlyMap<string, readonly CatalogEntryRecord[]>;
  readonly byGvk: ReadonlyMap<string, readonly CatalogEntryRecord[]>;
  /** Sorted channels (newest first) or the error `sortChannel` gave, filled on demand. */
  readonly sortedChannels: Map<string, readonly CatalogEntryRecord[] | Error>;
}

export const channelKey = (packageName: string, channel: string): string => `${packageName}\u0000${channel}`;

const indexes = new WeakMap<CatalogContent, CatalogIndex>();

export function indexCatalog(content: CatalogContent): CatalogIndex {
  let index = indexes.get(content);
  if (!index) {
    index = buildIndex(content);
    indexes.set(content, index);
  }
  return index;
}

function buildIndex(content: CatalogContent): CatalogIndex {
  const entries: CatalogEntryRecord[] = [];
  const byPackage = new Map<string, CatalogEntryRecord[]>();
  const byChannel = new Map<string, CatalogEntryRecord[]>();
  const byGvk = new Map<string, CatalogEntryRecord[]>();
  const push = <K>(map: Map<K, CatalogEntryRecord[]>, key: K, record: CatalogEntryRecord) => {
    const list = map.get(key);
    if (list) list.push(record);
    else map.set(key, [record]);
  };
  const packageNames = [...content.packages.keys()].sort();
  for (const packageName of packageNames) {
    const pkg = content.packages.get(packageName)!;
    const propertiesOf = new Map<string, { properties: readonly Property[]; isDeprecated: boolean }>();
    const channelNames = [...pkg.channels.keys()].sort();
    for (const channelName of channelNames) {
      const channel = pkg.channels.get(channelName)!;
      for (const entry of channel.entries) {
        const bundle = pkg.bundles.get(entry.name);
        if (!bundle) continue;
        let facts = propertiesOf.get(bundle.name);
        if (!facts) {
          facts = bundleFacts(bundle, packageName);
          propertiesOf.set(bundle.name, facts);
        }
        const record = entryRecord(bundle, entry, packageName, channelName, channelName === pkg.defaultChannel, facts);
        entries.push(record);
        push(byPackage, packageName, record);
        push(byChannel, channelKey(packageName, channelName), record);
        for (const gvk of new Set(providedGvks(record.properties).map(gvkKey))) push(byGvk, gvk, record);
      }
    }
  }
  return { entries, byPackage, byChannel, byGvk, sortedChannels: new Map() };
}

function bundleFacts(bundle: CatalogBundle, packageName: string): { properties: readonly Property[]; isDeprecated: boolean } {
  const hasPackage = packageProperties(bundle.properties).length > 0;
  const properties = hasPackage
    ? bundle.properties
    : [...bundle.properties, { type: 'olm.package', value: { packageName, version: bundle.version } }];
  return { properties, isDeprecated: bundle.properties.some((property) => property.type === 'olm.deprecated') };
}

function entryRecord(
  bundle: CatalogBundle,
  entry: ChannelEntry,
  packageName: string,
  channel: string,
  isDefaultChannel: boolean,
  facts: { properties: readonly Property[]; isDeprecated: boolean },
): CatalogEntryRecord {
  return {
    name: bundle.name,
    package: packageName,
    channel,
    isDefaultChannel,
    replaces: entry.replaces || undefined,
    skips: entry.skips ?? [],
    skipRange: entry.skipRange || undefined,
    version: bundle.version,
    properties: facts.properties,
    isDeprecated: facts.isDeprecated,
  };
}
