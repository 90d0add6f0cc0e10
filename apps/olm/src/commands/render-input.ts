import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RenderImageOptions } from '@olm/bundle-authoring';
import type { BundleImageLimits } from '@olm/bundle-puller/registry';
import type { DeclarativeConfig, LoadProblem } from '@olm/registry';
import type { Command } from 'commander';
import { inputError } from '../cli-errors.js';
import { parsePositiveInteger } from '../option-parsers.js';
import { addAuthoringLimitOptions, authoringLimitsFromOptions, type AuthoringLimitOptions } from './authoring-limit-options.js';
import { catalogLimitsFromOptions, type CatalogLimitOptions } from './catalog-limit-options.js';
import { addRegistryOptions, checkImageReference, registryCredentials, sizeText, withProgress, type RegistryOptions } from './image-options.js';

/** The flags bounding an image `olm catalog render` reads, one per limit of `BundleImageLimits`. */
const imageLimitFlags: ReadonlyArray<{ readonly flag: string; readonly key: keyof BundleImageLimits; readonly option: string; readonly description: string }> = [
  { flag: '--image-max-layers <count>', key: 'maxLayers', option: 'imageMaxLayers', description: 'most layers of an image (default 128)' },
  { flag: '--image-max-compressed-bytes <bytes>', key: 'maxCompressedBytes', option: 'imageMaxCompressedBytes', description: 'most layer bytes read, as stored (default 512 MiB)' },
  { flag: '--image-max-uncompressed-bytes <bytes>', key: 'maxUncompressedBytes', option: 'imageMaxUncompressedBytes', description: 'most bytes of all layers decompressed (default 1 GiB)' },
  { flag: '--image-max-file-bytes <bytes>', key: 'maxFileBytes', option: 'imageMaxFileBytes', description: 'largest file of the catalog or bundle in the image (default 64 MiB)' },
  { flag: '--image-max-content-bytes <bytes>', key: 'maxManifestBytes', option: 'imageMaxContentBytes', description: 'most bytes of catalog or bundle files kept, over all layers (default 256 MiB)' },
  { flag: '--image-max-files <count>', key: 'maxFiles', option: 'imageMaxFiles', description: 'most catalog or bundle entries, over all layers (default 100000)' },
];

export type RenderInputOptions = RegistryOptions & CatalogLimitOptions & AuthoringLimitOptions & Partial<Record<string, unknown>>;

/** The registry, image-limit and bundle-directory flags of a command that renders (besides the catalog limit flags it has). */
export function addRenderInputOptions(command: Command): Command {
  return addAuthoringLimitOptions(addImageReadOptions(command), { fileBytes: false });
}

/** The image-limit and registry flags of a command that reads images. */
export function addImageReadOptions(command: Command): Command {
  for (const { flag, description } of imageLimitFlags) command.option(flag, description, parsePositiveInteger);
  return addRegistryOptions(command);
}

function describeProblems(problems: readonly LoadProblem[]): string {
  return problems.map((problem) => `  ${problem.file}${problem.line === undefined ? '' : `:${problem.line}`}: ${problem.message}`).join('\n');
}

const isDirectory = (path: string) => stat(path).then((info) => info.isDirectory(), () => false);

/**
 * What `opm render` reads, by what `ref` is: a bundle directory (`manifests/` and `metadata/`), a
 * catalog directory, or else an image reference (a catalog or bundle image, pulled and bounded).
 */
export async function loadRenderInput(ref: string, options: RenderInputOptions): Promise<DeclarativeConfig> {
  const catalogLimits = catalogLimitsFromOptions(options);
  if (await isDirectory(ref)) {
    if ((await isDirectory(join(ref, 'manifests'))) && (await isDirectory(join(ref, 'metadata')))) {
      const { readDirectoryFiles, renderBundleFiles } = await import('@olm/bundle-authoring');
      return renderBundleFiles(await readDirectoryFiles(ref, await authoringLimitsFromOptions(options)), ref);
    }
    const { loadDeclarativeConfig } = await import('@olm/registry');
    const config = await loadDeclarativeConfig(ref, { limits: catalogLimits });
    if (config.errors.length > 0) throw inputError(`cannot load catalog ${ref}: ${config.errors.length} problem(s)\n${describeProblems(config.errors)}`);
    return config;
  }
  if (/^(\.{1,2}|~)?\//.test(ref) || ref === '.' || ref === '..') {
    throw inputError(`cannot read ${ref}: no such directory; pass a catalog or bundle directory, or an image reference such as quay.io/acme/catalog:latest`);
  }
  await checkImageReference(ref, 'the reference');
  const { renderImage } = await import('@olm/bundle-authoring');
  return withProgress(`pulled ${ref}`, `pulling ${ref} failed`, async (progress) =>
    renderImage(ref, { ...(await imageRenderOptions(ref, options, 'olm catalog render')), onProgress: (bytesRead) => progress.update(`pulling ${ref}: ${sizeText(bytesRead)} read`) }),
  );
}

/** How `command` reads the image `ref`: its registry's credentials, the image limits of its flags (naming them when one is crossed). */
export async function imageRenderOptions(ref: string, options: RenderInputOptions, command: string): Promise<RenderImageOptions> {
  const { defaultRenderImageLimits } = await import('@olm/bundle-authoring');
  const limits = { ...defaultRenderImageLimits };
  for (const { key, option } of imageLimitFlags) if (typeof options[option] === 'number') limits[key] = options[option];
  return {
    insecureRegistries: options.insecureRegistry,
    credentials: await registryCredentials(options, ref),
    limits,
    limitHints: Object.fromEntries(imageLimitFlags.map(({ key, flag }) => [key, `${command} ${flag.split(' ')[0]}`])),
    catalogLimits: catalogLimitsFromOptions(options),
  };
}
