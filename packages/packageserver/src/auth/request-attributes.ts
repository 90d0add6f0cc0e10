/** What a request asks to do, as kube's RequestInfo resolves it for authorization. */
export type RequestAttributes =
  | { readonly resourceRequest: false; readonly verb: string; readonly path: string }
  | {
      readonly resourceRequest: true;
      readonly verb: string;
      readonly group: string;
      readonly version: string;
      readonly resource: string;
      readonly subresource: string;
      readonly namespace: string;
      readonly name: string;
    };

const resourceVerbs: Readonly<Record<string, string>> = { POST: 'create', PUT: 'update', PATCH: 'patch' };

/**
 * `/apis/<group>/<version>/[namespaces/<ns>/]<resource>[/<name>[/<subresource>]]` is a resource
 * request (get, list, watch, …); anything else, discovery and OpenAPI included, a non-resource one
 * whose verb is the lower-cased method.
 */
export function requestAttributes(method: string, url: string): RequestAttributes {
  const [rawPath = '/', rawQuery = ''] = url.split('?', 2);
  const query = new URLSearchParams(rawQuery);
  let parts: string[];
  try {
    parts = rawPath.split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part));
  } catch {
    parts = [];
  }
  const nonResource = { resourceRequest: false as const, verb: method.toLowerCase(), path: rawPath };
  if (parts[0] !== 'apis' || parts.length < 4) return nonResource;
  const [, group = '', version = ''] = parts;
  let rest = parts.slice(3);
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1] ?? '';
    rest = rest.slice(2);
  } else if (rest[0] === 'namespaces') {
    // `/namespaces/<ns>` names a namespace object, as kube reads it.
    return { resourceRequest: true, verb: verbOf(method, query, rest[1] ?? ''), group, version, resource: 'namespaces', subresource: '', namespace: '', name: rest[1] ?? '' };
  }
  const [resource = '', pathName = '', subresource = ''] = rest;
  const watch = query.get('watch') === 'true' || query.get('watch') === '1';
  const name = pathName !== '' ? pathName : (nameFromFieldSelector(query.get('fieldSelector')) ?? '');
  const collection = pathName === '';
  let verb = verbOf(method, query, pathName);
  if ((method === 'GET' || method === 'HEAD') && collection) verb = watch ? 'watch' : 'list';
  return { resourceRequest: true, verb, group, version, resource, subresource, namespace, name: collection && verb !== 'list' && verb !== 'watch' ? '' : name };
}

function verbOf(method: string, query: URLSearchParams, name: string): string {
  if (method === 'GET' || method === 'HEAD') return query.get('watch') === 'true' || query.get('watch') === '1' ? 'watch' : 'get';
  if (method === 'DELETE') return name === '' ? 'deletecollection' : 'delete';
  return resourceVerbs[method] ?? method.toLowerCase();
}

/** kube names the object of a list or watch by `metadata.name=<name>` in the field selector. */
function nameFromFieldSelector(selector: string | null): string | undefined {
  for (const requirement of (selector ?? '').split(',')) {
    const match = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(requirement);
    if (match) return match[1];
  }
  return undefined;
}
