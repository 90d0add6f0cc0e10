/** Provided APIs as OLM writes them (`Kind.version.group`) and their aggregation labels. */
import { fnv64aHex } from './hash.js';
import { OperatorGroupAggregationKeyPrefix } from './labels.js';

export interface ApiKey {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `Kind.version.group`, the form of the `olm.providedAPIs` annotation. */
export function apiKeyToGvkString(key: ApiKey): string {
  return `${key.kind}.${key.version}.${key.group}`;
}

/**
 * Parses `Kind.version.group` entries (each may itself be a comma-separated list, as in the annotation),
 * leniently like upstream: spaces are dropped, entries with fewer than two dots are skipped, and the
 * group is everything after the second dot. Duplicates are removed; the result is sorted.
 */
export function parseProvidedApis(entries: readonly string[]): ApiKey[] {
  const keys = new Map<string, ApiKey>();
  for (const entry of entries) {
    for (const raw of entry.replace(/ /g, '').split(',')) {
      const first = raw.indexOf('.');
      const second = first < 0 ? -1 : raw.indexOf('.', first + 1);
      if (second < 0) continue;
      const key = { kind: raw.slice(0, first), version: raw.slice(first + 1, second), group: raw.slice(second + 1) };
      keys.set(apiKeyToGvkString(key), key);
    }
  }
  return [...keys.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, key]) => key);
}

/** FNV-1a 64 of `Kind.version.group`, in hex: the API's part of aggregation label keys. */
export function apiKeyHash(key: ApiKey): string {
  return fnv64aHex(apiKeyToGvkString(key));
}

/** `olm.opgroup.permissions/aggregate-to-<hash>-<suffix>`: joins a per-API ClusterRole to the group ClusterRole. */
export function aggregationLabelKey(key: ApiKey, suffix: string): string {
  return `${OperatorGroupAggregationKeyPrefix}${apiKeyHash(key)}-${suffix}`;
}
