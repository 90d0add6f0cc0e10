/** An API as OperatorGroups name it: `Kind.version.group` (group may contain dots). */
export type ApiKey = string;

export function apiKey(gvk: { readonly group: string; readonly version: string; readonly kind: string }): ApiKey {
  return `${gvk.kind}.${gvk.version}.${gvk.group}`;
}

/** Parses the annotation leniently, as upstream: comma separated, spaces dropped, empty items skipped. */
export function parseProvidedApis(annotation: string | undefined): Set<ApiKey> {
  const apis = new Set<ApiKey>();
  for (const item of (annotation ?? '').replace(/\s+/g, '').split(',')) {
    if (item.split('.').length >= 3) apis.add(item);
  }
  return apis;
}

/** The annotation value: sorted, comma joined. */
export function formatProvidedApis(apis: Iterable<ApiKey>): string {
  return [...new Set(apis)].sort().join(',');
}
