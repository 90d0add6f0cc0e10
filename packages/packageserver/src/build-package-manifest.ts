import type { ApiBundle, ApiPackage } from '@olm/registry';
import { compareVersions, parseVersionTolerant, type Version } from '@olm/semver-range';
import { parseCsv, type ParsedCsv } from './csv-description.js';
import {
  packageManifestKind,
  packagesApiVersion,
  type AppLink,
  type ChannelEntry,
  type PackageChannel,
  type PackageManifest,
} from './package-manifest.js';

/** What a PackageManifest says about the CatalogSource it came from. */
export interface CatalogSourceSummary {
  readonly namespace: string;
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly creationTimestamp?: string;
  readonly displayName?: string;
  readonly publisher?: string;
}

/** One package as read from a registry: its channels' heads (or why one could not be read) and bundles. */
export interface RegistryPackage {
  readonly package: ApiPackage;
  /** The head bundle of each channel (`GetBundleForChannel`), or the error reading it. */
  readonly heads: ReadonlyMap<string, ApiBundle | Error>;
  /** The bundles of each channel (`ListBundles`); only name, version and deprecation are used. */
  readonly bundles: ReadonlyMap<string, readonly Pick<ApiBundle, 'csvName' | 'version' | 'deprecation'>[]>;
}

export interface BuiltPackageManifest {
  /** Undefined when no channel head could be read: upstream leaves such a package out. */
  readonly manifest?: PackageManifest;
  /** What was left out and why (channels whose head is missing or not a CSV). */
  readonly problems: readonly string[];
}

const osLabelPrefix = 'operatorframework.io/os';
const archLabelPrefix = 'operatorframework.io/arch';

/** A package without os/arch labels is taken to support linux on amd64, as upstream assumes. */
export function withDefaultOsArchLabels(labels: Record<string, string>): Record<string, string> {
  const keys = Object.keys(labels);
  if (!keys.some((key) => key.startsWith(osLabelPrefix))) labels[`${osLabelPrefix}.linux`] = 'supported';
  if (!keys.some((key) => key.startsWith(archLabelPrefix))) labels[`${archLabelPrefix}.amd64`] = 'supported';
  return labels;
}

function byVersionDescending(entries: readonly Pick<ApiBundle, 'csvName' | 'version' | 'deprecation'>[]): ChannelEntry[] {
  const parsed = new Map<string, Version | undefined>();
  const versionOf = (text: string): Version | undefined => {
    if (!parsed.has(text)) {
      try {
        parsed.set(text, parseVersionTolerant(text));
      } catch {
        parsed.set(text, undefined);
      }
    }
    return parsed.get(text);
  };
  return [...entries]
    .sort((left, right) => {
      const a = versionOf(left.version);
      const b = versionOf(right.version);
      if (a && b) {
        const order = compareVersions(b, a);
        if (order !== 0) return order;
      } else if (a || b) return a ? -1 : 1;
      return left.csvName < right.csvName ? -1 : left.csvName > right.csvName ? 1 : 0;
    })
    .map((bundle) => ({
      name: bundle.csvName,
      ...(bundle.version !== '' ? { version: bundle.version } : {}),
      ...(bundle.deprecation ? { deprecation: { message: bundle.deprecation.message } } : {}),
    }));
}

/**
 * A PackageManifest from a registry's answers, with upstream's rules (`newPackageManifest`):
 * a channel whose head cannot be read or is not a CSV is left out, and if that was the default
 * channel the first remaining one becomes the default; the provider (status and `provider`/
 * `provider-url` labels) comes from the default channel's head, else the first channel's; labels
 * are the CatalogSource's, then `catalog`/`catalog-namespace`, then the default head CSV's own,
 * then default os/arch labels. `creationTimestamp` is the CatalogSource's.
 */
export function buildPackageManifest(source: CatalogSourceSummary, read: RegistryPackage): BuiltPackageManifest {
  const pkg = read.package;
  const problems: string[] = [];
  let defaultChannel = pkg.defaultChannelName;
  let defaultElided = false;
  let defaultCsv: ParsedCsv | undefined;
  let provider: AppLink | undefined;
  const labels: Record<string, string> = { ...source.labels, catalog: source.name, 'catalog-namespace': source.namespace };
  const channels: PackageChannel[] = [];
  for (const channel of pkg.channels) {
    const head = read.heads.get(channel.name);
    let csv: ParsedCsv | undefined;
    if (head === undefined || head instanceof Error) {
      problems.push(`package ${pkg.name}, channel ${channel.name}: cannot read the channel head: ${head?.message ?? 'not fetched'}`);
    } else {
      try {
        csv = parseCsv(head.csvJson);
      } catch (error) {
        problems.push(`package ${pkg.name}, channel ${channel.name}: head ${head.csvName}: ${(error as Error).message}`);
      }
    }
    if (!head || head instanceof Error || !csv) {
      defaultElided ||= channel.name === defaultChannel;
      continue;
    }
    if (defaultCsv === undefined || channel.name === defaultChannel) defaultCsv = csv;
    channels.push({
      name: channel.name,
      currentCSV: csv.name,
      currentCSVDesc: csv.description,
      entries: byVersionDescending(read.bundles.get(channel.name) ?? []),
      ...(channel.deprecation ? { deprecation: { message: channel.deprecation.message } } : {}),
    });
    if ((defaultChannel !== '' && channel.name === defaultChannel) || provider === undefined) {
      provider = csv.provider;
      labels['provider'] = provider.name ?? '';
      labels['provider-url'] = provider.url ?? '';
    }
  }
  if (channels.length === 0 || defaultCsv === undefined) {
    return { problems: [...problems, `package ${pkg.name}: left out, no channel head could be read`] };
  }
  if (defaultElided) defaultChannel = channels[0]!.name;
  Object.assign(labels, defaultCsv.labels);
  withDefaultOsArchLabels(labels);
  return {
    problems,
    manifest: {
      apiVersion: packagesApiVersion,
      kind: packageManifestKind,
      metadata: {
        name: pkg.name,
        namespace: source.namespace,
        labels,
        ...(source.creationTimestamp !== undefined ? { creationTimestamp: source.creationTimestamp } : {}),
      },
      spec: {},
      status: {
        catalogSource: source.name,
        catalogSourceDisplayName: source.displayName ?? '',
        catalogSourcePublisher: source.publisher ?? '',
        catalogSourceNamespace: source.namespace,
        provider: provider ?? {},
        packageName: pkg.name,
        channels,
        defaultChannel,
        ...(pkg.deprecation ? { deprecation: { message: pkg.deprecation.message } } : {}),
      },
    },
  };
}
