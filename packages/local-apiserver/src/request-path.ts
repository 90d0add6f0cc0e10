/** Parses request paths the way kube-apiserver's RequestInfoFactory does. */
export type Route =
  | { readonly kind: 'version' }
  | { readonly kind: 'health'; readonly check: string }
  | { readonly kind: 'api' }
  | { readonly kind: 'apis' }
  | { readonly kind: 'group'; readonly group: string }
  | { readonly kind: 'resourceList'; readonly group: string; readonly version: string }
  | { readonly kind: 'openapiV3Index' }
  | { readonly kind: 'openapiV3'; readonly path: string }
  | { readonly kind: 'openapiV2' }
  | {
      readonly kind: 'resource';
      readonly group: string;
      readonly version: string;
      readonly plural: string;
      readonly namespace?: string;
      readonly name?: string;
      readonly subresource?: string;
    }
  | { readonly kind: 'unknown' };

/** Subresources of a namespace that are not namespaced resources. */
const namespaceSubresources = new Set(['status', 'finalize']);

export function parseRoute(pathname: string): Route {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  if (path === '/version') return { kind: 'version' };
  if (path === '/healthz' || path === '/readyz' || path === '/livez' || /^\/(healthz|readyz|livez)\/[^/]+$/.test(path)) {
    return { kind: 'health', check: path.slice(1) };
  }
  if (path === '/api') return { kind: 'api' };
  if (path === '/apis') return { kind: 'apis' };
  if (path === '/openapi/v3') return { kind: 'openapiV3Index' };
  if (path.startsWith('/openapi/v3/')) return { kind: 'openapiV3', path: path.slice('/openapi/v3/'.length) };
  if (path === '/openapi/v2') return { kind: 'openapiV2' };
  const segments = path.split('/').slice(1).map((segment) => decodeURIComponent(segment));
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api') {
    if (segments.length < 2) return { kind: 'unknown' };
    group = '';
    version = segments[1] ?? '';
    rest = segments.slice(2);
  } else if (segments[0] === 'apis') {
    if (segments.length === 2) return { kind: 'group', group: segments[1] ?? '' };
    if (segments.length < 3) return { kind: 'unknown' };
    group = segments[1] ?? '';
    version = segments[2] ?? '';
    rest = segments.slice(3);
  } else return { kind: 'unknown' };
  if (rest.length === 0) return { kind: 'resourceList', group, version };
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length > 1) {
    if (rest.length > 2 && !namespaceSubresources.has(rest[2] ?? '')) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  if (rest.length > 3 || rest.some((segment) => segment === '')) return { kind: 'unknown' };
  const [plural = '', name, subresource] = rest;
  return {
    kind: 'resource',
    group,
    version,
    plural,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}
