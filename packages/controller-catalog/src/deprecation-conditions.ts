import type { CatalogControllerContext } from './controller-context.js';
import { asString, nameOf, type AnyObject } from './kinds.js';
import { removeConditions, setCondition, type SubscriptionStatus } from './subscription-status.js';

const deprecationTypes = ['PackageDeprecated', 'ChannelDeprecated', 'BundleDeprecated'] as const;

/**
 * `PackageDeprecated`, `ChannelDeprecated` (only with a channel in the spec) and `BundleDeprecated`
 * (for the installed CSV) from the catalog's `olm.deprecations`, plus the roll-up `Deprecated`.
 * Read from the content already loaded for the Subscription's catalog; nothing changes before that.
 */
export function deprecationConditions(
  subscription: AnyObject,
  status: SubscriptionStatus,
  sources: readonly AnyObject[],
  context: CatalogControllerContext,
  now: Date,
): SubscriptionStatus {
  const spec = (subscription.spec ?? {}) as { name?: string; channel?: string; source?: string; sourceNamespace?: string };
  const source = sources.find((candidate) => nameOf(candidate) === spec.source && candidate.metadata?.namespace === spec.sourceNamespace);
  const content = source ? context.connections.cachedContent({ namespace: asString(spec.sourceNamespace), name: asString(spec.source) }) : undefined;
  if (!content) return status;
  const entries = content.packages.get(asString(spec.name))?.deprecations ?? [];
  const find = (schema: string, name?: string) => entries.find((entry) => entry.reference.schema === schema && (name === undefined || entry.reference.name === name));
  const found: Record<(typeof deprecationTypes)[number], string | undefined> = {
    PackageDeprecated: find('olm.package') ? `olm.package/${asString(spec.name)}: ${find('olm.package')!.message}` : undefined,
    ChannelDeprecated: spec.channel && find('olm.channel', spec.channel) ? `olm.channel/${spec.channel}: ${find('olm.channel', spec.channel)!.message}` : undefined,
    BundleDeprecated:
      status.installedCSV && find('olm.bundle', status.installedCSV) ? `olm.bundle/${status.installedCSV}: ${find('olm.bundle', status.installedCSV)!.message}` : undefined,
  };
  let next = status;
  const messages: string[] = [];
  for (const type of deprecationTypes) {
    const message = found[type];
    if (message) {
      messages.push(message);
      next = setCondition(next, { type, status: 'True', reason: 'Deprecated', message }, now).status;
    } else {
      next = removeConditions(next, [type], now).status;
    }
  }
  next = messages.length > 0
    ? setCondition(next, { type: 'Deprecated', status: 'True', reason: 'Deprecated', message: messages.join('; ') }, now).status
    : removeConditions(next, ['Deprecated'], now).status;
  return next;
}
