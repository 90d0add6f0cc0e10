import { foldKey } from './go-json-decode.js';
import { compareStrings, goJson, goQuote, goTypeName } from '@olm/go-format';

export interface MetaKeys {
  readonly schema: string;
  readonly package: string;
  readonly name: string;
}

const metaKeys = ['schema', 'package', 'name'] as const;

/**
 * Finds `schema`, `package` and `name` in a blob case-insensitively, as upstream's
 * `Meta.UnmarshalJSON`. Throws an Error with upstream's message for duplicate or non-string keys.
 */
export function extractMetaKeys(blob: Readonly<Record<string, unknown>>): MetaKeys {
  const found: Record<string, string[]> = { schema: [], package: [], name: [] };
  for (const key of Object.keys(blob)) {
    // Only keys of the right length can fold to a meta key; skip the fold for the rest.
    if (key.length < 4 || key.length > 7) continue;
    const folded = foldKey(key);
    if (folded === 'schema' || folded === 'package' || folded === 'name') found[folded]?.push(key);
  }
  const result: Record<string, string> = { schema: '', package: '', name: '' };
  for (const metaKey of metaKeys) {
    const keys = (found[metaKey] ?? []).sort(compareStrings);
    if (keys.length > 1) throw new Error(`duplicate keys for key ${goQuote(metaKey)}: [${keys.join(' ')}]`);
    const key = keys[0];
    if (key === undefined) continue;
    const value = blob[key];
    if (typeof value !== 'string') {
      throw new Error(`expected value for key ${goQuote(metaKey)} to be a string, got ${goTypeName(value)}`);
    }
    result[metaKey] = value;
  }
  return { schema: result.schema ?? '', package: result.package ?? '', name: result.name ?? '' };
}

/** Upstream prints the whole blob in "missing root schema" errors; we cap it so a huge blob stays readable. */
export function describeBlob(blob: unknown, limit = 500): string {
  const text = goJson(blob, { escapeHtml: false });
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}
