import { OlmError } from '@olm/core';
import type { DeclarativeConfig, FbcBundle, FbcChannel, FbcPackage } from '@olm/registry';
import { parseRange, satisfies, type VersionRange } from '@olm/semver-range';
import { MirrorErrorCodes } from './mirror-limits.js';

/** Which part of a catalog to mirror: packages, channels (by name), and a blang version range of the bundles. */
export interface MirrorFilter {
  readonly packages?: readonly string[];
  readonly channels?: readonly string[];
  readonly versionRange?: string;
}

const inputError = (message: string) => new OlmError(MirrorErrorCodes.input, message);

const listed = (names: Iterable<string>) => {
  const all = [...names].sort();
  return all.length > 20 ? `${all.slice(0, 20).join(', ')} and ${all.length - 20} more` : all.join(', ');
};

function versionOf(bundle: FbcBundle): string | undefined {
  const value = bundle.properties.find((property) => property.type === 'olm.package')?.value as { version?: unknown } | undefined;
  return typeof value?.version === 'string' ? value.version : undefined;
}

function parseVersionRange(text: string): VersionRange {
  try {
    return parseRange(text);
  } catch (error) {
    throw inputError(`--version-range ${JSON.stringify(text)} is not a version range (${(error as Error).message}); write e.g. ">=1.2.0 <2.0.0"`);
  }
}

/** The bundles a package keeps: in a kept channel (when channels are named) and in the range (when one is given). */
function keptBundles(bundles: readonly FbcBundle[], channels: readonly FbcChannel[], filter: MirrorFilter, range: VersionRange | undefined): Set<string> {
  const inChannels = new Set(channels.flatMap((channel) => channel.entries.map((entry) => entry.name)));
  return new Set(
    bundles
      .filter((bundle) => filter.channels === undefined || inChannels.has(bundle.name))
      .filter((bundle) => {
        const version = versionOf(bundle);
        return range === undefined || (version !== undefined && satisfies(version, range));
      })
      .map((bundle) => bundle.name),
  );
}

/** The package with a default channel that is still there (the first kept one, by name, when its own was filtered out). */
function withDefaultChannel(item: FbcPackage, channels: readonly FbcChannel[]): FbcPackage {
  if (channels.some((channel) => channel.name === item.defaultChannel)) return item;
  return { ...item, defaultChannel: [...channels].sort((a, b) => (a.name < b.name ? -1 : 1))[0]!.name };
}

/**
 * The part of a catalog `filter` selects: named packages (all when none), named channels with their
 * entries pruned to the bundles in the version range; a package left without bundles is dropped. A
 * package or channel named that the catalog does not have is an error (a typo would mirror nothing).
 */
export function filterCatalog(config: DeclarativeConfig, filter: MirrorFilter): DeclarativeConfig {
  const range = filter.versionRange === undefined ? undefined : parseVersionRange(filter.versionRange);
  const allPackages = new Set(config.packages.map((item) => item.name));
  const missing = (filter.packages ?? []).filter((name) => !allPackages.has(name));
  if (missing.length > 0) throw inputError(`--package ${missing.join(',')}: not in the catalog, which has ${listed(allPackages)}`);
  const channelNames = new Set(filter.channels ?? []);
  const missingChannels = [...channelNames].filter((name) => !config.channels.some((channel) => channel.name === name));
  if (missingChannels.length > 0) throw inputError(`--channel ${missingChannels.join(',')}: no package of the catalog has such a channel; channels found: ${listed(new Set(config.channels.map((channel) => channel.name)))}`);
  const packages: FbcPackage[] = [];
  const channels: FbcChannel[] = [];
  const bundles: FbcBundle[] = [];
  for (const item of config.packages) {
    if (filter.packages && !filter.packages.includes(item.name)) continue;
    const ownChannels = config.channels.filter((channel) => channel.package === item.name && (filter.channels === undefined || channelNames.has(channel.name)));
    const ownBundles = config.bundles.filter((bundle) => bundle.package === item.name);
    const kept = keptBundles(ownBundles, ownChannels, filter, range);
    const keptChannels = ownChannels.map((channel) => ({ ...channel, entries: channel.entries.filter((entry) => kept.has(entry.name)) })).filter((channel) => channel.entries.length > 0);
    if (keptChannels.length === 0) continue;
    packages.push(withDefaultChannel(item, keptChannels));
    channels.push(...keptChannels);
    bundles.push(...ownBundles.filter((bundle) => kept.has(bundle.name)));
  }
  if (packages.length === 0) throw inputError('the filters (--package, --channel, --version-range) select no bundle of the catalog; loosen them');
  const names = new Set(packages.map((item) => item.name));
  return {
    ...config,
    packages,
    channels,
    bundles,
    deprecations: config.deprecations.filter((item) => names.has(item.package)),
    others: config.others.filter((item) => item.package === '' || names.has(item.package)),
  };
}
