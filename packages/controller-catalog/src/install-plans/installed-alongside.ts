/** Upstream's annotation prefix recording which CSVs a CRD was installed alongside (read by the OLM operator's requirement check). */
export const installedAlongsidePrefix = 'operatorframework.io/installed-alongside-';

export interface CsvReference {
  readonly namespace: string;
  readonly name: string;
}

const utf8 = new TextEncoder();

/**
 * 64-bit FNV-1a, printed in hex without padding (Go's `%x` of `fnv.New64a().Sum64()`). In two 32-bit
 * halves rather than BigInt, which allocates per byte: a CRD shared by an operator installed in many
 * namespaces gets one key per namespace on every apply.
 */
export function fnv64a(text: string): string {
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (const byte of utf8.encode(text)) {
    low = (low ^ byte) >>> 0;
    // × 0x100000001b3 (2^40 + 0x1b3) modulo 2^64
    const lowProduct = low * 0x1b3;
    high = (Math.imul(high, 0x1b3) + (low << 8) + Math.floor(lowProduct / 0x100000000)) >>> 0;
    low = lowProduct >>> 0;
  }
  return high === 0 ? low.toString(16) : `${high.toString(16)}${low.toString(16).padStart(8, '0')}`;
}

/** `operatorframework.io/installed-alongside-<fnv64a of "<namespace>/<name>">`, as upstream names it. */
export function installedAlongsideKey(csv: CsvReference): string {
  return `${installedAlongsidePrefix}${fnv64a(`${csv.namespace}/${csv.name}`)}`;
}

/** The CSVs named by an object's installed-alongside annotations (values `<namespace>/<name>`; others ignored). */
export function installedAlongside(annotations: Readonly<Record<string, string>> | undefined): CsvReference[] {
  return Object.entries(annotations ?? {})
    .filter(([key]) => key.startsWith(installedAlongsidePrefix))
    .map(([, value]) => value.split('/'))
    .filter((parts): parts is [string, string] => parts.length === 2)
    .map(([namespace, name]) => ({ namespace, name }));
}

/** The annotations with every installed-alongside entry replaced by one per CSV given. */
export function withInstalledAlongside(annotations: Readonly<Record<string, string>> | undefined, csvs: readonly CsvReference[]): Record<string, string> {
  const kept = Object.fromEntries(Object.entries(annotations ?? {}).filter(([key]) => !key.startsWith(installedAlongsidePrefix)));
  for (const csv of csvs) kept[installedAlongsideKey(csv)] = `${csv.namespace}/${csv.name}`;
  return kept;
}
