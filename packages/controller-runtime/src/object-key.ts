import type { CachedObject, ObjectKind, ReconcileRequest } from '@olm/core';

/** `namespace/name` for a namespaced object, `name` for a cluster-scoped one: the queue and cache key. */
export function requestKey(request: ReconcileRequest): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

export function objectKey(object: CachedObject): string {
  return requestKey(requestFor(object));
}

export function requestFor(object: CachedObject): ReconcileRequest {
  const namespace = object.metadata?.namespace;
  const name = object.metadata?.name ?? '';
  return namespace ? { namespace, name } : { name };
}

/** The inverse of `requestKey` (names cannot contain `/`). */
export function parseRequestKey(key: string): ReconcileRequest {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** `group/Kind` (version-free: an owner reference matches any version of its kind's group). */
export function groupKind(kind: ObjectKind): string {
  const slash = kind.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : kind.apiVersion.slice(0, slash);
  return `${group}/${kind.kind}`;
}

/** The cache key of a kind: a metadata-only cache of a kind is another cache than the full one. */
export function kindId(kind: ObjectKind): string {
  return `${kind.metadataOnly ? 'metadata:' : ''}${kind.apiVersion}/${kind.kind}`;
}
