import type { CachedObject, ObjectKind, ReconcileRequest } from '@olm/core';
import { OLM_OWNER_KIND_LABEL, OLM_OWNER_LABEL, OLM_OWNER_NAMESPACE_LABEL } from './indexer.js';
import { groupKind, requestKey } from './object-key.js';

/** Maps a changed object to the requests to reconcile. */
export type RequestMapper = (object: CachedObject) => readonly ReconcileRequest[];

export interface OwnerMapperOptions {
  /** Whether the owner kind is namespaced; the controller learns it from discovery. Default true. */
  readonly ownerNamespaced?: boolean;
  /** Follow only the ownerReference marked `controller: true`. Default false. */
  readonly controllerOnly?: boolean;
}

/**
 * Maps an object to its owners of one kind: through `ownerReferences` whose group and kind match
 * (any version), and through OLM's owner labels `olm.owner`, `olm.owner.namespace`, `olm.owner.kind`,
 * which also link objects across namespaces and to cluster-scoped objects.
 */
export function mapToOwner(owner: ObjectKind, options: OwnerMapperOptions = {}): RequestMapper {
  const ownerGroupKind = groupKind(owner);
  const namespaced = options.ownerNamespaced ?? true;
  return (object) => {
    const requests = new Map<string, ReconcileRequest>();
    const add = (name: string, namespace: string | undefined) => {
      const request: ReconcileRequest = namespaced && namespace ? { namespace, name } : { name };
      requests.set(requestKey(request), request);
    };
    const metadata = object.metadata;
    for (const reference of metadata?.ownerReferences ?? []) {
      if (options.controllerOnly && reference.controller !== true) continue;
      if (groupKind(reference) !== ownerGroupKind) continue;
      add(reference.name, metadata?.namespace);
    }
    const labels = metadata?.labels;
    const labelledName = labels?.[OLM_OWNER_LABEL];
    if (labelledName && labels?.[OLM_OWNER_KIND_LABEL] === owner.kind) {
      add(labelledName, labels[OLM_OWNER_NAMESPACE_LABEL]);
    }
    return [...requests.values()];
  };
}

/** The owner's identity, as read from an object fetched from the API server. */
export interface OwnerObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly uid: string };
}

/** Sets OLM's owner labels on `object` (in place) and returns it. */
export function setOwnerLabels<T extends CachedObject>(object: T, owner: OwnerObject): T {
  const metadata = (object.metadata ??= {});
  metadata.labels = {
    ...metadata.labels,
    [OLM_OWNER_LABEL]: owner.metadata.name,
    [OLM_OWNER_NAMESPACE_LABEL]: owner.metadata.namespace ?? '',
    [OLM_OWNER_KIND_LABEL]: owner.kind,
  };
  return object;
}

/** Adds (or replaces, by uid) an ownerReference to `owner` on `object` (in place) and returns it. */
export function setOwnerReference<T extends CachedObject>(
  object: T,
  owner: OwnerObject,
  options: { readonly controller?: boolean; readonly blockOwnerDeletion?: boolean } = {},
): T {
  const metadata = (object.metadata ??= {});
  const reference = {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    ...(options.controller === undefined ? {} : { controller: options.controller }),
    ...(options.blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion: options.blockOwnerDeletion }),
  };
  metadata.ownerReferences = [
    ...(metadata.ownerReferences ?? []).filter((existing) => existing.uid !== owner.metadata.uid),
    reference,
  ];
  return object;
}
