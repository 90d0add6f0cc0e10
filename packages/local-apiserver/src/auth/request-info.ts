import { parseFieldSelector } from '../field-selector.js';
import { parseRoute } from '../request-path.js';

/**
 * What a request asks to do, in the terms authorizers decide on (kube-apiserver's RequestInfo and
 * authorizer.Attributes): a verb on a resource of an API group, optionally namespaced and named, or
 * a verb on a non-resource path (`/version`, `/apis`, `/healthz`).
 */
export interface RequestAttributes {
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** The URL path (what non-resource rules match). */
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

const verbsByMethod: Readonly<Record<string, string>> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** Every field is "supported" here: only `metadata.name=…` matters, other terms are the handler's to check. */
const anyField: ReadonlySet<string> = new (class extends Set<string> {
  override has(): boolean {
    return true;
  }
})();

export function nonResourceAttributes(verb: string, path: string): RequestAttributes {
  return { verb, isResourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

export function requestAttributes(method: string, url: string): RequestAttributes {
  const questionMark = url.indexOf('?');
  const path = questionMark >= 0 ? url.slice(0, questionMark) : url;
  const query = new URLSearchParams(questionMark >= 0 ? url.slice(questionMark + 1) : '');
  let route: ReturnType<typeof parseRoute>;
  try {
    route = parseRoute(path);
  } catch {
    route = { kind: 'unknown' };
  }
  if (route.kind !== 'resource') return nonResourceAttributes(method.toLowerCase(), path);
  let verb = verbsByMethod[method.toUpperCase()] ?? method.toLowerCase();
  let name = route.name ?? '';
  // A namespace's own path names its namespace too: a RoleBinding in `ns` can grant `get` on it.
  const namespace = route.namespace ?? (route.group === '' && route.plural === 'namespaces' ? name : '');
  if (name === '' && verb === 'get') {
    // The same test the handler uses to serve a watch, so that what is authorized is what is served.
    const watch = query.get('watch');
    verb = watch === 'true' || watch === '1' ? 'watch' : 'list';
    name = nameFromFieldSelector(query.get('fieldSelector'));
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return {
    verb,
    isResourceRequest: true,
    path,
    apiGroup: route.group,
    apiVersion: route.version,
    resource: route.plural,
    subresource: route.subresource ?? '',
    namespace,
    name,
  };
}

/** A list or watch of one name (`fieldSelector=metadata.name=x`) is authorized as a request for that name. */
function nameFromFieldSelector(fieldSelector: string | null): string {
  if (fieldSelector === null || fieldSelector === '') return '';
  try {
    const name = parseFieldSelector(fieldSelector, anyField).exactValue('metadata.name') ?? '';
    return name === '.' || name === '..' || name.includes('/') || name.includes('%') ? '' : name;
  } catch {
    return '';
  }
}
