import { StatusError } from './errors.js';
import type { JsonObject, KubeObject } from './kube-object.js';
import type { ResourceType } from './resource-type.js';

/**
 * `meta.k8s.io/v1` PartialObjectMetadata output (what client-go's metadata client and metadata-only
 * informers ask for): objects reduced to their `metadata`, as kube-apiserver transforms them when the
 * Accept header says `application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`.
 */
export type PartialMetadataKind = 'PartialObjectMetadata' | 'PartialObjectMetadataList';

const groupVersion = 'meta.k8s.io/v1';

/**
 * The PartialObjectMetadata form the first media range of `accept` asks for, if it asks for one.
 * As kube-apiserver, the first range the server can produce wins: `…;as=Table…` before it means a
 * Table, plain `application/json` or `*∕*` before it the full objects.
 */
export function partialMetadataRequested(accept: string | undefined): PartialMetadataKind | undefined {
  for (const range of (accept ?? '').split(',')) {
    const [mediaType = '', ...parameterTexts] = range.split(';').map((part) => part.trim());
    if (mediaType !== 'application/json' && mediaType !== '*/*' && mediaType !== 'application/*') continue;
    const parameters = new Map(parameterTexts.map((text) => text.split('=').map((part) => part.trim()) as [string, string]));
    const as = parameters.get('as');
    if (as === undefined) return undefined;
    if (parameters.get('g') !== 'meta.k8s.io' || (parameters.get('v') ?? 'v1') !== 'v1') continue;
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return as;
    if (as === 'Table') return undefined;
  }
  return undefined;
}

export function asPartialObjectMetadata(object: KubeObject): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion: groupVersion, metadata: object.metadata as unknown as JsonObject };
}

export function partialObjectMetadataList(listMeta: JsonObject, items: readonly KubeObject[]): JsonObject {
  return { kind: 'PartialObjectMetadataList', apiVersion: groupVersion, metadata: listMeta, items: items.map(asPartialObjectMetadata) };
}

export const partialMetadataContentType = (kind: PartialMetadataKind): string => `application/json;as=${kind};g=meta.k8s.io;v=v1`;

/** kube-apiserver's 406 when the form asked for does not fit the endpoint (an object for a list, a list for an object). */
export function notAcceptable(requested: PartialMetadataKind, type: ResourceType, isList: boolean): StatusError {
  const goType = `*${type.group === '' ? 'core' : type.group.split('.')[0]}.${type.kind}${isList ? 'List' : ''}`;
  const message = isList
    ? `you requested ${requested}, but the requested object is a list (${goType})`
    : `you requested ${requested}, but the requested object is not a list (${goType})`;
  return new StatusError(406, 'NotAcceptable', message);
}
