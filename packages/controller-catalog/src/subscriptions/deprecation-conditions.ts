import { SubscriptionConditionTypes, type SubscriptionSpec } from '@olm/api';
import type { CachedObject, CatalogPackage } from '@olm/core';
import type { SubscriptionDeps } from './subscription-deps.js';
import { asString, nameOf } from '../kinds.js';
import { removeConditions, setCondition, type SubscriptionStatus } from './subscription-status.js';

const deprecationTypes = [
  SubscriptionConditionTypes.PackageDeprecated,
  SubscriptionConditionTypes.ChannelDeprecated,
  SubscriptionConditionTypes.BundleDeprecated,
] as const;

/** Whether the installed CSV is an entry of the Subscription's channel (any channel when none is named). */
function hasEntry(pkg: CatalogPackage, channel: string, csv: string): boolean {
  const channels = channel ? [pkg.channels.get(channel)] : [...pkg.channels.values()];
  return channels.some((candidate) => candidate?.entries.some((entry) => entry.name === csv));
}

/**
 * `PackageDeprecated`, `ChannelDeprecated` (only with a channel in the spec) and `BundleDeprecated`
 * from the catalog's `olm.deprecations`, plus the roll-up `Deprecated`; like upstream, without a
 * reason, and only for the installed CSV's entry in the Subscription's catalog, package and channel:
 * before anything is installed, or while that entry is not in the catalog, the conditions stay as
 * they are. Read from the content already loaded for the Subscription's catalog.
 */
export function deprecationConditions(
  subscription: { readonly spec?: Partial<SubscriptionSpec> },
  status: SubscriptionStatus,
  sources: readonly CachedObject[],
  context: Pick<SubscriptionDeps, 'connections'>,
  now: Date,
): SubscriptionStatus {
  const spec: Partial<SubscriptionSpec> = subscription.spec ?? {};
  const installed = asString(status.installedCSV);
  if (!installed) return status;
  const source = sources.find((candidate) => nameOf(candidate) === spec.source && candidate.metadata?.namespace === spec.sourceNamespace);
  const content = source ? context.connections.cachedContent({ namespace: asString(spec.sourceNamespace), name: asString(spec.source) }) : undefined;
  const pkg = content?.packages.get(asString(spec.name));
  if (!pkg || !hasEntry(pkg, asString(spec.channel), installed)) return status;

  const entries = pkg.deprecations ?? [];
  const find = (schema: string, name?: string) => entries.find((entry) => entry.reference.schema === schema && (name === undefined || entry.reference.name === name));
  const packageEntry = find('olm.package');
  const channelEntry = spec.channel ? find('olm.channel', spec.channel) : undefined;
  const bundleEntry = find('olm.bundle', installed);
  const found: Record<(typeof deprecationTypes)[number], string | undefined> = {
    PackageDeprecated: packageEntry ? `olm.package/${asString(spec.name)}: ${packageEntry.message}` : undefined,
    ChannelDeprecated: channelEntry ? `olm.channel/${spec.channel}: ${channelEntry.message}` : undefined,
    BundleDeprecated: bundleEntry ? `olm.bundle/${installed}: ${bundleEntry.message}` : undefined,
  };
  let next = status;
  const messages: string[] = [];
  for (const type of deprecationTypes) {
    const message = found[type];
    if (message) {
      messages.push(message);
      next = setCondition(next, { type, status: 'True', message }, now).status;
    } else {
      next = removeConditions(next, [type], now).status;
    }
  }
  next = messages.length > 0
    ? setCondition(next, { type: SubscriptionConditionTypes.Deprecated, status: 'True', message: messages.join('; ') }, now).status
    : removeConditions(next, [SubscriptionConditionTypes.Deprecated], now).status;
  return next;
}
