/**
 * JSON text the way Go's encoding/json writes it, so property values and synthesised CSVs match
 * what `opm serve` sends byte for byte where that is cheap: compact, optional key sorting (Go sorts
 * map keys), U+2028/U+2029 always escaped, and `<`, `>`, `&` escaped when `escapeHtml` (json.Marshal's default).
 */
export interface GoJsonOptions {
  readonly sortKeys?: boolean;
  readonly escapeHtml?: boolean;
}

export function goJson(value: unknown, options: GoJsonOptions = {}): string {
  const text = JSON.stringify(options.sortKeys ? sortKeysDeep(value) : value) ?? 'null';
  let escaped = text.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  if (options.escapeHtml) {
    escaped = escaped.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  }
  return escaped;
}

/** Compact JSON with keys sorted at every level: how upstream stores FBC property values. */
export function canonicalJson(value: unknown): string {
  return goJson(value, { sortKeys: true });
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value !== null && typeof value === 'object') {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      sorted[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
    }
    return sorted;
  }
  return value;
}
