import { didYouMean, type ResolveInput, type ResolverSubscription } from '@olm/core';
import { parseRange } from '@olm/semver-range';
import { tolerantVersion } from './version-pin.js';

const listed = (names: readonly string[], limit = 8) =>
  names.length === 0 ? 'none' : names.length <= limit ? names.join(', ') : `${names.slice(0, limit).join(', ')} and ${names.length - limit} more`;

/**
 * A ResolutionFailed message a cluster admin can act on: the resolver's explanation (upstream's
 * "constraints not satisfiable: …", the minimal conflict) followed by what the Subscription asked for, the
 * catalogs searched, and a suggested fix read from the input (which of catalog, package, channel,
 * starting CSV or version pin does not match, with close matches; else how to leave the conflict).
 */
export function readableFailure(input: ResolveInput, subscription: ResolverSubscription, explanation: string): string {
  const own = `${subscription.sourceNamespace}/${subscription.source}`;
  const others = input.catalogs.map((catalog) => `${catalog.namespace}/${catalog.name}`).filter((name) => name !== own);
  const searched = `catalogs searched: ${own}${others.length > 0 ? ` (dependencies also from ${listed(others)})` : ''}`;
  const wants =
    `subscription ${subscription.name} asks for package ${subscription.package}` +
    `${subscription.channel ? ` in channel ${subscription.channel}` : ' in its default channel'}` +
    `${subscription.versionRange ? ` within version pin ${JSON.stringify(subscription.versionRange)}` : ''} from catalog ${own}`;
  return `${explanation.replace(/\.$/, '')}. ${capitalised(wants)}; ${searched}. Fix: ${suggestedFix(input, subscription)}`;
}

function suggestedFix(input: ResolveInput, subscription: ResolverSubscription): string {
  const catalog = input.catalogs.find((each) => each.name === subscription.source && each.namespace === subscription.sourceNamespace);
  if (!catalog) {
    const visible = input.catalogs.map((each) => each.name);
    return (
      `CatalogSource ${subscription.sourceNamespace}/${subscription.source} is not visible to namespace ${input.namespace} or has no content: ` +
      `create it, or correct spec.source and spec.sourceNamespace${didYouMean(subscription.source, visible)} (visible: ${listed(input.catalogs.map((each) => `${each.namespace}/${each.name}`))})`
    );
  }
  const pkg = catalog.content.packages.get(subscription.package);
  if (!pkg) {
    const packages = [...catalog.content.packages.keys()].sort();
    return `correct spec.name${didYouMean(subscription.package, packages)} (catalog ${subscription.sourceNamespace}/${subscription.source} offers ${listed(packages)})`;
  }
  const channels = [...pkg.channels.keys()].sort();
  const channel = subscription.channel ? pkg.channels.get(subscription.channel) : pkg.channels.get(pkg.defaultChannel);
  if (subscription.channel && !channel) return `set spec.channel to one of ${listed(channels)}${didYouMean(subscription.channel, channels)} (the default is ${pkg.defaultChannel})`;
  const entries = channel?.entries.map((entry) => entry.name) ?? [];
  if (subscription.startingCSV && !subscription.installedCSV && channel && !entries.includes(subscription.startingCSV)) {
    return `remove spec.startingCSV to install the channel head, or set it to a bundle of channel ${channel.name}${didYouMean(subscription.startingCSV, entries)}`;
  }
  if (subscription.versionRange) {
    const fix = pinFix(subscription.versionRange, entries.map((name) => pkg.bundles.get(name)?.version ?? ''));
    if (fix) return fix;
  }
  return (
    'the constraints above cannot hold together: change or delete one of the Subscriptions they name, pin a version that ' +
    'satisfies them, or make the missing API available (a catalog or an installed operator that provides it); ' +
    '`olm explain` shows what each catalog offers'
  );
}

function pinFix(versionRange: string, versions: readonly string[]): string | undefined {
  let range: ReturnType<typeof parseRange>;
  try {
    range = parseRange(versionRange);
  } catch {
    return `correct the version pin ${JSON.stringify(versionRange)} to a range such as ">=1.1.0 <1.3.0"`;
  }
  if (versions.some((text) => {
    const version = tolerantVersion(text);
    return version !== undefined && range.test(version);
  })) return undefined;
  return `widen the version pin ${JSON.stringify(versionRange)}: no version of the channel is inside it (versions: ${listed([...versions].filter(Boolean))})`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
