import { ClusterCatalogSourceTypes, SourceDirectoryAnnotation, type ClusterCatalog } from '@olm/api';
import { signaturePolicyAnnotation } from '@olm/core';

/** Where a catalog's content comes from: its image, or (this project's addition) a directory the controller was given. */
export type CatalogSourceSpec =
  | { readonly type: 'image'; readonly ref: string; readonly signaturePolicy?: string }
  | { readonly type: 'directory'; readonly name: string; readonly ref: string };

export type SourceOf = { readonly ok: true; readonly spec: CatalogSourceSpec; readonly key: string } | { readonly ok: false; readonly message: string };

const hasDigest = (ref: string) => /@[^:]*:/.test(ref);

/**
 * The catalog's source, or why it cannot have one (a Blocked condition: only a change of the
 * ClusterCatalog helps). The CRD's CEL rules refuse most of these on a real API server; the local API
 * server does not evaluate CEL, so they are checked here too, with upstream's words.
 */
export function sourceOf(catalog: Pick<ClusterCatalog, 'metadata' | 'spec'>): SourceOf {
  const source = catalog.spec?.source;
  if (source?.type !== ClusterCatalogSourceTypes.image) return { ok: false, message: `unknown source type ${JSON.stringify(source?.type ?? '')}` };
  const image = source.image;
  if (!image || typeof image.ref !== 'string' || image.ref === '') {
    return { ok: false, message: `error parsing ClusterCatalog ${JSON.stringify(catalog.metadata.name ?? '')}, image source is nil` };
  }
  if (hasDigest(image.ref) && image.pollIntervalMinutes !== undefined) return { ok: false, message: 'cannot specify pollIntervalMinutes while using digest-based image' };
  const directory = catalog.metadata.annotations?.[SourceDirectoryAnnotation];
  if (directory !== undefined) return { ok: true, spec: { type: 'directory', name: directory, ref: image.ref }, key: `directory:${directory}:${image.ref}` };
  // an annotation, not a field: the CRD stays upstream's; a new policy is a new source (unpacked and verified again)
  const policy = catalog.metadata.annotations?.[signaturePolicyAnnotation];
  if (policy) return { ok: true, spec: { type: 'image', ref: image.ref, signaturePolicy: policy }, key: `image:${image.ref}:policy:${policy}` };
  return { ok: true, spec: { type: 'image', ref: image.ref }, key: `image:${image.ref}` };
}

/** How often the source is looked at again, or undefined when it is not polled (`minuteMs`: a minute, shorter in tests). */
export function pollIntervalMs(catalog: Pick<ClusterCatalog, 'spec'>, minuteMs = 60_000): number | undefined {
  const minutes = catalog.spec?.source?.image?.pollIntervalMinutes;
  return typeof minutes === 'number' && minutes >= 1 ? minutes * minuteMs : undefined;
}
