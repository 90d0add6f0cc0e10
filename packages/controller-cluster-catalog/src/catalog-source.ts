import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CatalogConfigsLabel, DefaultCatalogConfigsDirectory } from '@olm/api';
import { extractImageFiles, normalizeTarPath, type BundleImageLimits, type OciRegistryClient } from '@olm/bundle-puller';
import { OlmError, describeError, hasErrorCode, signaturePolicyAnnotation, type ImageSignatureVerifier } from '@olm/core';
import { loadCatalog, type Catalog, type CatalogLimits } from '@olm/registry';
import { CatalogImageBudget } from './catalog-image-limits.js';

export const ClusterCatalogErrorCodes = {
  badConfigsLabel: 'OLM_CLUSTER_CATALOG_BAD_CONFIGS_LABEL',
  unknownDirectory: 'OLM_CLUSTER_CATALOG_UNKNOWN_DIRECTORY',
  invalidSpec: 'OLM_CLUSTER_CATALOG_INVALID_SPEC',
  serverNotStarted: 'OLM_CLUSTER_CATALOG_SERVER_NOT_STARTED',
  noSignatureVerifier: 'OLM_IMAGE_SIGNATURE_NO_VERIFIER',
} as const;

/** A catalog read from its source: the loaded model, and the digest ref it was read at (a directory has none: its content's digest is used). */
export interface LoadedCatalog {
  readonly catalog: Catalog;
  readonly resolvedRef?: string;
}

/** `quay.io/acme/catalog:v1` or `…@sha256:…` without its tag or digest. */
export function repositoryOf(ref: string): string {
  const withoutDigest = ref.replace(/@.*$/, '');
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}

/** The image directory holding the file-based catalog, from the image's label (default `/configs`), as a tar path (`configs`). */
function configsDirectory(labels: Readonly<Record<string, string>> | null | undefined, image: string): string {
  const label = labels?.[CatalogConfigsLabel] ?? DefaultCatalogConfigsDirectory;
  const directory = normalizeTarPath(label);
  if (directory === undefined || directory === '') {
    throw new OlmError(
      ClusterCatalogErrorCodes.badConfigsLabel,
      `catalog image ${image} has label ${CatalogConfigsLabel}=${JSON.stringify(label)}, which names no directory inside the image; rebuild the image with the label naming the catalog directory (e.g. /configs)`,
    );
  }
  return directory;
}

export interface ImageSourceOptions {
  readonly registryClient: OciRegistryClient;
  readonly imageLimits: BundleImageLimits;
  readonly catalogLimits?: Partial<CatalogLimits>;
  /** Where the configs are written to be loaded (removed afterwards). */
  readonly scratchDirectory: string;
  readonly signal: AbortSignal;
}

/** The digest the image ref resolves to now, reading only its manifest (layers are read when opened). */
export async function pullCatalogImage(ref: string, options: ImageSourceOptions) {
  const budget = new CatalogImageBudget(options.imageLimits, ref);
  const pulled = await options.registryClient.pullImage(ref, { signal: options.signal, budget });
  return { pulled, budget, resolvedRef: `${repositoryOf(ref)}@${pulled.referenceDigest}` };
}

/** Verifies the digest pulled against the catalog's signature policy before any layer is read; without a verifier booted the catalog is refused. */
export async function verifyCatalogImage(verifier: ImageSignatureVerifier | undefined, ref: string, digest: string, policy: string, signal: AbortSignal): Promise<void> {
  if (!verifier) {
    throw new OlmError(
      ClusterCatalogErrorCodes.noSignatureVerifier,
      `the catalog requires signed images (annotation ${signaturePolicyAnnotation}: ${policy}) and no image signature verifier is booted; boot @olm/image-signatures' imageSignaturesPlugin (olm run/up do), or remove the annotation`,
    );
  }
  await verifier.verify({ image: ref, digest, policy, signal });
}

/**
 * The file-based catalog of a pulled image: the files under its configs directory (bounded by the image
 * limits, one layer streaming at a time) written to a scratch directory and loaded with the registry's
 * bounded loader, which refuses an invalid catalog as `opm serve` does.
 */
export async function loadCatalogImage(ref: string, source: Awaited<ReturnType<typeof pullCatalogImage>>, options: ImageSourceOptions): Promise<LoadedCatalog> {
  const directory = configsDirectory((await source.pulled.config()).config?.Labels, ref);
  const files = await extractImageFiles(source.pulled.layers, ref, source.budget, [directory]);
  await mkdir(options.scratchDirectory, { recursive: true });
  const scratch = await mkdtemp(join(options.scratchDirectory, 'unpack-'));
  try {
    for (const [path, bytes] of files) {
      const target = join(scratch, path.slice(directory.length + 1));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes);
    }
    files.clear();
    const catalog = await loadFrom(scratch, `the ${directory} directory of catalog image ${ref}`, options.catalogLimits);
    return { catalog, resolvedRef: source.resolvedRef };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Loads a catalog directory with the registry's bounded loader, its errors naming `description` instead of the path. */
export async function loadFrom(directory: string, description: string, limits: Partial<CatalogLimits> | undefined): Promise<Catalog> {
  try {
    return await loadCatalog(directory, limits ? { limits } : {});
  } catch (error) {
    if (!hasErrorCode(error)) throw error;
    throw new OlmError(error.code, describeError(error).split(directory).join(description), { cause: error });
  }
}
