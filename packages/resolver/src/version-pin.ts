import { describeError, type ResolverSubscription, type WithheldUpdate } from '@olm/core';
import { compareVersions, parseRange, parseVersion, parseVersionTolerant, type Version } from '@olm/semver-range';
import type { CatalogEntryRecord } from './catalog-index.js';

export type PinOutcome = { readonly allowed: CatalogEntryRecord[]; readonly withheld?: WithheldUpdate } | { readonly invalid: string };

/**
 * The update candidates of a Subscription inside its version pin (`versionRange`), and the newest one the
 * pin keeps out when it is newer than every allowed one (what the Subscription's condition explains).
 */
export function withinVersionPin(subscription: ResolverSubscription, candidates: CatalogEntryRecord[]): PinOutcome {
  if (!subscription.versionRange) return { allowed: candidates };
  let range: ReturnType<typeof parseRange>;
  try {
    range = parseRange(subscription.versionRange);
  } catch (error) {
    return {
      invalid: `version pin ${JSON.stringify(subscription.versionRange)} of subscription ${subscription.name} is not a version range (${describeError(error)}); write one such as ">=1.1.0 <1.3.0"`,
    };
  }
  const inRange = (record: CatalogEntryRecord) => {
    const version = versionOf(record);
    return version !== undefined && range.test(version);
  };
  const allowed = candidates.filter(inRange);
  const newestOut = newest(candidates.filter((record) => !inRange(record)));
  const newestIn = newest(allowed);
  if (!newestOut || (newestIn && compareVersions(newestOut.version, newestIn.version) <= 0)) return { allowed };
  const bundle = { name: newestOut.record.name, version: newestOut.record.version };
  return { allowed, withheld: { subscription: subscription.name, versionRange: subscription.versionRange, bundle } };
}

function newest(records: readonly CatalogEntryRecord[]): { record: CatalogEntryRecord; version: Version } | undefined {
  let best: { record: CatalogEntryRecord; version: Version } | undefined;
  for (const record of records) {
    const version = versionOf(record);
    if (version && (!best || compareVersions(version, best.version) > 0)) best = { record, version };
  }
  return best;
}

const versionOf = (record: CatalogEntryRecord) => tolerantVersion(record.version);

/** A bundle's version, strict or as upstream's tolerant parse reads it; undefined when neither can. */
export function tolerantVersion(text: string): Version | undefined {
  if (!text) return undefined;
  try {
    return parseVersion(text);
  } catch {
    try {
      return parseVersionTolerant(text);
    } catch {
      return undefined;
    }
  }
}
