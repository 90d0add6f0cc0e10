import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOciRegistryTransfer, MediaTypes, parseImageReference, type OciRegistryClientOptions, type RegistryCredential } from '@olm/bundle-puller/registry';
import { OlmError } from '@olm/core';
import { loadDeclarativeConfig, renderCatalog, type CatalogLimits, type DeclarativeConfig } from '@olm/registry';
import { buildCatalogImage } from '../build-images.js';
import { renderImage, type RenderImageOptions } from '../render/render-image.js';
import { copyImage, type CopyContext, type CopyStats, type Endpoint } from './copy-image.js';
import { filterCatalog, type MirrorFilter } from './filter-catalog.js';
import { layoutStore, registryStore, type ImageStore } from './image-store.js';
import { defaultMirrorLimits, MirrorBudget, MirrorErrorCodes, type MirrorLimits } from './mirror-limits.js';
import { catalogImages, mirroredImage, rewriteReferences, type MirroredImage } from './mirror-references.js';

export type MirrorSource = { readonly image: string } | { readonly directory: string } | { readonly layout: string };
export type MirrorTarget = { readonly registry: string } | { readonly layout: string };

export interface MirrorProgress extends CopyStats {
  readonly imagesDone: number;
  readonly imagesTotal: number;
  readonly current: string;
}

export interface MirrorCatalogOptions extends OciRegistryClientOptions {
  readonly filter?: MirrorFilter;
  readonly limits?: Partial<MirrorLimits>;
  readonly catalogLimits?: Partial<CatalogLimits>;
  /** How a catalog image is read (its image limits and their hints). */
  readonly render?: RenderImageOptions;
  /** The credentials for a repository (`registry/path`), source or target. */
  readonly credentialsFor?: (repository: string) => readonly RegistryCredential[];
  readonly onProgress?: (progress: MirrorProgress) => void;
  /** Images copied at the same time (default 4): registries answer each request after a round trip, so a few in flight keep the line busy. */
  readonly parallel?: number;
}

export interface MirrorResult {
  /** The catalog image to serve: the rewritten one at the target registry by digest, or (to a layout) where the catalog was written. */
  readonly catalogImage: string;
  /** Every image copied and its new reference (by digest). */
  readonly images: ReadonlyArray<{ readonly image: MirroredImage; readonly mirrored: string }>;
  readonly stats: CopyStats;
  readonly catalog: DeclarativeConfig;
}

/** The side files of a mirror layout: the filtered catalog (references as in the source) and where it came from. */
const layoutCatalogDir = (dir: string) => join(dir, 'olm-mirror', 'catalog');
const layoutMetadata = (dir: string) => join(dir, 'olm-mirror', 'mirror.json');
interface LayoutMetadata {
  readonly catalogRepository: string;
  readonly tag: string;
}

async function loadCatalogDirectory(dir: string, limits: Partial<CatalogLimits> | undefined): Promise<DeclarativeConfig> {
  const config = await loadDeclarativeConfig(dir, limits ? { limits } : {});
  const [problem] = config.errors;
  if (problem) throw new OlmError(MirrorErrorCodes.input, `catalog ${dir} does not load (${config.errors.length} problem(s)), first: ${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`);
  return config;
}

/** The source catalog, and where its rebuilt image goes (repository path and tag below the target). */
async function loadSource(source: MirrorSource, options: MirrorCatalogOptions): Promise<{ config: DeclarativeConfig; repository: string; tag: string; image?: MirroredImage }> {
  if ('image' in source) {
    const image = mirroredImage(source.image, '', false);
    const config = await renderImage(source.image, { ...(options.insecureRegistries ? { insecureRegistries: options.insecureRegistries } : {}), ...options.render });
    if (config.bundles.length === 0 || config.packages.length === 0) throw new OlmError(MirrorErrorCodes.input, `${source.image} is not a catalog image (no packages); mirror a catalog image, a catalog directory or an oci-layout: directory`);
    return { config, repository: parseImageReference(source.image).repository, tag: image.tag ?? 'latest', image };
  }
  if ('directory' in source) return { config: await loadCatalogDirectory(source.directory, options.catalogLimits), repository: 'catalog', tag: 'latest' };
  let metadata: LayoutMetadata;
  try {
    metadata = JSON.parse(await readFile(layoutMetadata(source.layout), 'utf8')) as LayoutMetadata;
  } catch (error) {
    throw new OlmError(MirrorErrorCodes.input, `${source.layout} is not a layout olm catalog mirror wrote (${(error as Error).message}); write one with olm catalog mirror SRC --to oci-layout:${source.layout}`);
  }
  return { config: await loadCatalogDirectory(layoutCatalogDir(source.layout), options.catalogLimits), repository: metadata.catalogRepository, tag: metadata.tag };
}

/** A copy's error, saying which image of which bundle failed and how to leave it out. */
function copyFailure(error: unknown, image: MirroredImage, config: DeclarativeConfig): unknown {
  if (!(error instanceof OlmError) || error.code === MirrorErrorCodes.limitExceeded) return error;
  const bundle = config.bundles.find((item) => item.image === image.original || item.relatedImages.some((related) => related.image === image.original));
  const named = bundle ? ` (${bundle.image === image.original ? 'the image' : 'a related image'} of bundle ${bundle.name} of package ${bundle.package})` : '';
  return new OlmError(error.code, `copying ${image.original}${named}: ${error.message}; to mirror without it, leave the bundle out with --package, --channel or --version-range`, { cause: error, ...(error.details ? { details: error.details } : {}) });
}

/** Stores a built image (the rebuilt catalog) in a store under a tag. */
async function storeBuiltImage(store: ImageStore, repository: string, tag: string, image: Awaited<ReturnType<typeof buildCatalogImage>>): Promise<string> {
  for (const [digest, bytes] of [[image.layerDigest, image.layer], [image.configDigest, image.config]] as const) {
    if (!(await store.hasBlob(repository, digest))) await store.writeBlob(repository, digest, (async function* () {
      yield bytes;
    })());
  }
  const manifest = { bytes: image.manifest, mediaType: MediaTypes.ociManifest, digest: image.manifestDigest };
  await store.writeManifest(repository, image.manifestDigest, manifest);
  await store.writeManifest(repository, tag, manifest);
  return `${repository}@${image.manifestDigest}`;
}

/** Rebuilds the catalog image from `config` (its FBC as one JSON stream under /configs). */
async function buildRewrittenCatalog(config: DeclarativeConfig, catalogLimits: Partial<CatalogLimits> | undefined) {
  const dir = await mkdtemp(join(tmpdir(), 'olm-mirror-catalog-'));
  try {
    await writeFile(join(dir, 'catalog.json'), renderCatalog(config, 'json'));
    return await buildCatalogImage(dir, catalogLimits ? { catalogLimits } : {});
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Mirrors a catalog: every bundle image and related image its (filtered) bundles name, copied by digest
 * with all their manifests and blobs (blobs the target has are skipped, so a rerun continues an interrupted
 * one); to a registry, the catalog rebuilt with its references rewritten to the copies; to an OCI layout,
 * the images under their source references and the filtered catalog beside them, to push from there later.
 */
export async function mirrorCatalog(source: MirrorSource, target: MirrorTarget, options: MirrorCatalogOptions = {}): Promise<MirrorResult> {
  const budget = new MirrorBudget({ ...defaultMirrorLimits, ...options.limits });
  const transfer = createOciRegistryTransfer({ userAgent: 'olm', ...options });
  const credentialsFor = options.credentialsFor ?? (() => []);
  const registries = registryStore('registry', transfer, credentialsFor);
  const loaded = await loadSource(source, options);
  const filtered = filterCatalog(loaded.config, options.filter ?? {});
  const to = 'registry' in target ? target.registry : '';
  const images = catalogImages(filtered, to);
  if (images.length + 1 > budget.limits.maxImages) throw budget.fail('maxImages', 'the mirror needs', `${images.length + 1} images (the catalog and ${images.length} images its bundles name)`);
  const sourceStore = 'layout' in source ? await layoutStore(source.layout) : registries;
  const targetStore = 'layout' in target ? await layoutStore(target.layout) : registries;
  const stats: CopyStats = { blobsCopied: 0, blobsSkipped: 0, bytesCopied: 0, manifests: 0, manifestsSkipped: 0 };
  const total = images.length + (loaded.image ? 1 : 0);
  let done = 0;
  let current = '';
  const context: CopyContext = { budget, stats, onProgress: () => options.onProgress?.({ ...stats, imagesDone: done, imagesTotal: total, current }) };
  const targetOf = (image: MirroredImage): Endpoint => ({ store: targetStore, repository: 'layout' in target ? image.sourceRepository : image.targetRepository });
  const copy = async (image: MirroredImage) => {
    current = image.original;
    let digest: string;
    try {
      digest = await copyImage({ store: sourceStore, repository: image.sourceRepository }, targetOf(image), image.reference, context, image.tag);
    } catch (error) {
      throw copyFailure(error, image, filtered);
    }
    done += 1;
    context.onProgress?.(stats);
    return { image, mirrored: `${targetOf(image).repository}@${digest}` };
  };
  try {
    // the source catalog image itself, by digest, beside the rebuilt one (to compare or go back to)
    if (loaded.image) {
      const { tag: _tag, ...untagged } = loaded.image;
      await copy({ ...untagged, targetRepository: `${to}/${loaded.repository}` });
    }
    const copied = await inParallel(images, options.parallel ?? 4, copy);
    const rewritten = rewriteReferences(filtered, new Map(copied.map(({ image, mirrored }) => [image.original, mirrored])));
    const catalogImage = await writeCatalog(target, targetStore, loaded, filtered, rewritten, options.catalogLimits);
    return { catalogImage, images: copied, stats, catalog: 'layout' in target ? filtered : rewritten };
  } finally {
    await targetStore.flush();
  }
}

/**
 * `work` over `items`, `width` at a time, results in the order of `items`. After a failure no new item
 * starts, and the ones under way finish (what they copied counts for the next run) before it is thrown.
 */
async function inParallel<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, width) }, worker));
  if (failure) throw failure.error;
  return results;
}

async function writeCatalog(
  target: MirrorTarget,
  store: ImageStore,
  loaded: { repository: string; tag: string },
  filtered: DeclarativeConfig,
  rewritten: DeclarativeConfig,
  catalogLimits: Partial<CatalogLimits> | undefined,
): Promise<string> {
  if ('registry' in target) return storeBuiltImage(store, `${target.registry}/${loaded.repository}`, loaded.tag, await buildRewrittenCatalog(rewritten, catalogLimits));
  await mkdir(layoutCatalogDir(target.layout), { recursive: true });
  await writeFile(join(layoutCatalogDir(target.layout), 'catalog.json'), renderCatalog(filtered, 'json'));
  await writeFile(layoutMetadata(target.layout), `${JSON.stringify({ catalogRepository: loaded.repository, tag: loaded.tag } satisfies LayoutMetadata)}\n`);
  return layoutCatalogDir(target.layout);
}
