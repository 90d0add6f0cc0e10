import type { CachedObject, ObjectKind } from '@olm/core';

/**
 * What a metadata-only list or watch asks kube-apiserver for (client-go's metadata client sends the
 * same): PartialObjectMetadata, else plain JSON from a server that cannot transform, which
 * `metadataOnlyObject` then reduces alike.
 */
export const metadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
export const metadataWatchAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * An object as a metadata-only cache keeps it: its own kind (PartialObjectMetadata names
 * `meta.k8s.io/v1`) and its `metadata` without `managedFields` and kubectl's last-applied
 * annotation, which copy the object's content (a Secret's data, for one applied with kubectl) and
 * would make the cache as large as a full one.
 */
export function metadataOnlyObject(kind: ObjectKind, object: CachedObject): CachedObject {
  const { managedFields: _managedFields, ...metadata } = object.metadata ?? {};
  const annotations = metadata.annotations;
  if (annotations && lastAppliedAnnotation in annotations) {
    const { [lastAppliedAnnotation]: _lastApplied, ...rest } = annotations;
    metadata.annotations = rest;
  }
  return { apiVersion: kind.apiVersion, kind: kind.kind, metadata };
}
