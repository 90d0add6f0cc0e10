/** Upstream's annotation prefix recording which CSVs a CRD was installed alongside (read by the OLM operator's requirement check). */
export const installedAlongsidePrefix = 'operatorframework.io/installed-alongside-';

export interface CsvReference {
  readonly namespace: string;
  readonly name: string;
}

/** 64-bit FNV-1a, printed in hex without padding (Go's `%x` of `fnv.New64a().Sum64()`). */
function fnv64a(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return hash.toString(16);
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
