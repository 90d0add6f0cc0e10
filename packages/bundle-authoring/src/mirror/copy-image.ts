import { createHash } from 'node:crypto';
import { checkDigestAlgorithm, MediaTypes, verifyComputedDigest, type Descriptor, type RawManifest } from '@olm/bundle-puller/registry';
import type { ImageStore } from './image-store.js';
import type { MirrorBudget } from './mirror-limits.js';

/** A repository of a store: where an image is read from or copied to. */
export interface Endpoint {
  readonly store: ImageStore;
  readonly repository: string;
}

/** What a copy did so far; `onProgress` hears it after each chunk and blob. */
export interface CopyStats {
  blobsCopied: number;
  blobsSkipped: number;
  bytesCopied: number;
  manifests: number;
  /** Manifests the target had already: not walked again. */
  manifestsSkipped: number;
}

export interface CopyContext {
  readonly budget: MirrorBudget;
  readonly stats: CopyStats;
  readonly onProgress?: (stats: CopyStats) => void;
}

const indexTypes = new Set<string>([MediaTypes.ociIndex, MediaTypes.dockerManifestList]);

/** The blob's bytes as they stream, counted against the budget and hashed; the digest is checked at the end. */
async function* checkedBlob(content: AsyncIterable<Uint8Array>, digest: string, what: string, context: CopyContext): AsyncGenerator<Uint8Array> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of content) {
    size += chunk.byteLength;
    context.budget.addBytes(chunk.byteLength, size, what);
    hash.update(chunk);
    context.stats.bytesCopied += chunk.byteLength;
    context.onProgress?.(context.stats);
    yield chunk;
  }
  verifyComputedDigest(digest, `sha256:${hash.digest('hex')}`, what);
}

/** Copies one blob unless the target has it (`HEAD` first), streaming it from the source without holding it whole. */
async function copyBlob(source: Endpoint, target: Endpoint, descriptor: Descriptor, context: CopyContext): Promise<void> {
  const what = `blob ${descriptor.digest} of ${source.repository}`;
  checkDigestAlgorithm(descriptor.digest, what);
  if (await target.store.hasBlob(target.repository, descriptor.digest)) {
    context.stats.blobsSkipped += 1;
    context.onProgress?.(context.stats);
    return;
  }
  context.budget.checkBlobSize(descriptor.size, what);
  // A failure inside the stream (a limit, a bad digest) reaches the upload as a cut body: report it, not the upload's error.
  let streamFailure: unknown;
  const content = checkedBlob(await source.store.openBlob(source.repository, descriptor.digest), descriptor.digest, what, context);
  async function* watched(): AsyncGenerator<Uint8Array> {
    try {
      yield* content;
    } catch (error) {
      streamFailure = error;
      throw error;
    }
  }
  try {
    await target.store.writeBlob(target.repository, descriptor.digest, watched());
  } catch (error) {
    throw streamFailure ?? error;
  }
  context.stats.blobsCopied += 1;
  context.onProgress?.(context.stats);
}

/**
 * Copies the image `reference` (a tag or digest) from `source` to `target` by digest: an index with
 * every manifest it lists (all architectures), each manifest's config and layers; then stores it at
 * the target under its digest and, when given, `tag`. A manifest the target already has is not read or
 * walked again (a registry accepts a manifest only once its blobs are there). Answers the digest.
 */
export async function copyImage(source: Endpoint, target: Endpoint, reference: string, context: CopyContext, tag?: string): Promise<string> {
  if (reference.startsWith('sha256:') && tag === undefined && (await target.store.hasManifest(target.repository, reference))) {
    context.budget.addImage(`${source.repository}@${reference}`);
    context.stats.manifestsSkipped += 1;
    context.onProgress?.(context.stats);
    return reference;
  }
  const manifest = await source.store.readManifest(source.repository, reference, context.budget.limits.maxManifestBytes);
  context.budget.addImage(`${source.repository}@${manifest.digest}`);
  if (await target.store.hasManifest(target.repository, manifest.digest)) {
    context.stats.manifestsSkipped += 1;
  } else {
    const parsed = JSON.parse(manifest.bytes.toString('utf8')) as { manifests?: Descriptor[]; config?: Descriptor; layers?: Descriptor[] };
    if (indexTypes.has(manifest.mediaType) || (parsed.manifests && !parsed.layers)) {
      for (const child of parsed.manifests ?? []) await copyImage(source, target, child.digest, context);
    } else {
      for (const blob of [...(parsed.config ? [parsed.config] : []), ...(parsed.layers ?? [])]) await copyBlob(source, target, blob, context);
    }
    await target.store.writeManifest(target.repository, manifest.digest, manifest);
    context.stats.manifests += 1;
  }
  if (tag !== undefined) await target.store.writeManifest(target.repository, tag, manifest);
  context.onProgress?.(context.stats);
  return manifest.digest;
}
