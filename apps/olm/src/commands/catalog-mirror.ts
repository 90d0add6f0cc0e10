import { stat } from 'node:fs/promises';
import type { MirrorProgress, MirrorSource, MirrorTarget } from '@olm/bundle-authoring';
import type { Command } from 'commander';
import { usageError } from '../cli-errors.js';
import { parseList, parsePositiveInteger } from '../option-parsers.js';
import { createProgress } from '../progress.js';
import { addCatalogLimitOptions, catalogLimitsFromOptions } from './catalog-limit-options.js';
import { commandGroup } from './command-group.js';
import { checkImageReference, registryCredentialsLookup, sizeText } from './image-options.js';
import { addImageReadOptions, imageRenderOptions, type RenderInputOptions } from './render-input.js';

const limitFlags = [
  { flag: '--max-images <count>', key: 'maxImages', description: 'most manifests copied, each image and each manifest of a multi-arch index (default 20000)' },
  { flag: '--max-manifest-bytes <bytes>', key: 'maxManifestBytes', description: 'largest manifest or index (default 4 MiB)' },
  { flag: '--max-blob-bytes <bytes>', key: 'maxBlobBytes', description: 'largest single blob (default 10 GiB)' },
  { flag: '--max-total-bytes <bytes>', key: 'maxTotalBytes', description: 'most blob bytes copied in the run (default 1 TiB)' },
] as const;

type MirrorOptions = RenderInputOptions & { to: string; package?: string[]; channel?: string[]; versionRange?: string; parallel?: number } & Partial<Record<(typeof limitFlags)[number]['key'], number>>;

const layoutPrefix = 'oci-layout:';

async function sourceOf(src: string): Promise<MirrorSource> {
  if (src.startsWith(layoutPrefix)) return { layout: src.slice(layoutPrefix.length) };
  if (await stat(src).then((info) => info.isDirectory(), () => false)) return { directory: src };
  await checkImageReference(src, 'SRC');
  return { image: src };
}

async function targetOf(to: string): Promise<MirrorTarget> {
  if (to.startsWith(layoutPrefix)) return { layout: to.slice(layoutPrefix.length) };
  const { parseImageReference } = await import('@olm/bundle-puller/registry');
  const registry = to.replace(/\/+$/, '');
  let parsed;
  try {
    parsed = parseImageReference(`${registry}/probe`);
  } catch {
    throw usageError(`--to ${JSON.stringify(to)} is neither a registry (host[:port][/path]) nor oci-layout:DIR`);
  }
  if (!registry.includes('/') && parsed.registry === 'registry-1.docker.io') throw usageError(`--to ${JSON.stringify(to)} names no registry host; write host[:port][/path], e.g. mirror.example.com:5000/olm`);
  return { registry };
}

/** Progress on a terminal only (bytes, images done of all); the summary line is always written. */
function progressReporter(): { report: (progress: MirrorProgress) => void; last: () => MirrorProgress | undefined; done: (text: string) => void } {
  const display = process.stderr.isTTY ? createProgress() : undefined;
  let last: MirrorProgress | undefined;
  return {
    report(progress) {
      last = progress;
      display?.update(`mirroring: ${progress.imagesDone}/${progress.imagesTotal} images, ${sizeText(progress.bytesCopied)} copied, ${progress.blobsSkipped} blobs already there: ${progress.current}`);
    },
    last: () => last,
    done: (text) => (display ? display.done(text) : process.stderr.write(`${text}\n`)),
  };
}

const summary = (progress: MirrorProgress | undefined) =>
  progress ? `${progress.imagesDone}/${progress.imagesTotal} images (${progress.manifests} manifests), ${progress.blobsCopied} blobs copied (${progress.bytesCopied} bytes), ${progress.blobsSkipped} blobs and ${progress.manifestsSkipped} manifests already at the target` : 'nothing copied';

/** `olm catalog mirror SRC --to REGISTRY|oci-layout:DIR`: a catalog and every image it names, copied by digest. */
export function registerCatalogMirrorCommand(program: Command): void {
  const command = commandGroup(program, 'catalog', 'work with file-based catalogs')
    .command('mirror')
    .description(
      'copy a catalog and every bundle image and related image it names, by digest (multi-arch indexes whole), to another registry or an OCI layout; resumable (blobs the target has are not copied again). To a registry, the catalog is rebuilt with its references rewritten and the CatalogSource, ClusterCatalog and mirror configuration (ImageDigestMirrorSet, registries.conf) are printed',
    )
    .argument('<src>', 'a catalog image reference, a catalog directory, or oci-layout:DIR (a layout an earlier mirror wrote, to push from inside an air gap)')
    .requiredOption('--to <target>', 'a registry (host[:port][/path]) or oci-layout:DIR')
    .option('--package <names>', 'only these packages (comma-separated)', parseList)
    .option('--channel <names>', 'only these channels (comma-separated)', parseList)
    .option('--version-range <range>', 'only bundles whose version is in this range (blang syntax, e.g. ">=1.0.0 <2.0.0")')
    .option('--parallel <count>', 'images copied at the same time (default 4)', parsePositiveInteger);
  for (const { flag, description } of limitFlags) command.option(flag, description, parsePositiveInteger);
  addCatalogLimitOptions(addImageReadOptions(command)).action(async (src: string, options: MirrorOptions) => {
    const [source, target] = [await sourceOf(src), await targetOf(options.to)];
    const { mirrorCatalog, catalogObjectsYaml, catalogObjectName, mirrorConfiguration } = await import('@olm/bundle-authoring');
    const credentialsFor = await registryCredentialsLookup(options);
    const limits = Object.fromEntries(limitFlags.filter(({ key }) => options[key] !== undefined).map(({ key }) => [key, options[key]]));
    const reporter = progressReporter();
    const where = 'layout' in target ? `the OCI layout ${target.layout}` : target.registry;
    let result;
    try {
      result = await mirrorCatalog(source, target, {
        insecureRegistries: options.insecureRegistry,
        filter: { ...(options.package ? { packages: options.package } : {}), ...(options.channel ? { channels: options.channel } : {}), ...(options.versionRange ? { versionRange: options.versionRange } : {}) },
        limits,
        catalogLimits: catalogLimitsFromOptions(options),
        ...('image' in source ? { render: await imageRenderOptions(source.image, options, 'olm catalog mirror') } : {}),
        credentialsFor,
        onProgress: reporter.report,
        ...(options.parallel ? { parallel: options.parallel } : {}),
      });
    } catch (error) {
      reporter.done(`mirror to ${where} stopped after ${summary(reporter.last())}; run the same command again to continue (what was copied is not copied again)`);
      throw error;
    }
    reporter.done(`mirrored to ${where}: ${summary(reporter.last())}`);
    if ('layout' in target) {
      process.stderr.write(`carry ${target.layout} into the disconnected network, then push it with: olm catalog mirror oci-layout:${target.layout} --to REGISTRY\n`);
      return;
    }
    const configuration = mirrorConfiguration(result.images.map(({ image }) => image), `${catalogObjectName(result.catalogImage)}-mirror`);
    process.stdout.write(`# the mirrored catalog ${result.catalogImage}: apply the CatalogSource (OLM v0) or the ClusterCatalog (OLM v1)\n${catalogObjectsYaml(result.catalogImage)}`);
    if (configuration !== '') process.stdout.write(`---\n# images the operators pull at run time, from the mirror\n${configuration}`);
  });
}
