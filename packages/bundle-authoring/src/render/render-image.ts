import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  BundleImageBudget,
  BundleImageErrorCodes,
  createOciRegistryClient,
  extractBundleFiles,
  extractImageFiles,
  normalizeTarPath,
  type BundleImageLimits,
  type OciRegistryClientOptions,
  type RegistryCredential,
} from '@olm/bundle-puller/registry';
import { OlmError } from '@olm/core';
import { loadDeclarativeConfig, type CatalogLimits, type DeclarativeConfig } from '@olm/registry';
import { AuthoringErrorCodes } from '../authoring-limits.js';
import { BundleAnnotations, catalogConfigsLabel, parseBundleContent } from '../bundle-content.js';
import { formatBundleProblem, ProblemList } from '../bundle-problem.js';
import { bundleToFbc } from './bundle-to-fbc.js';

/** Bounds of an image read by `renderImage`: catalog-sized (a catalog image is far larger than a bundle image). */
export const defaultRenderImageLimits: BundleImageLimits = Object.freeze({
  maxLayers: 128,
  maxCompressedBytes: 512 * 1024 * 1024,
  maxUncompressedBytes: 1024 * 1024 * 1024,
  maxFileBytes: 64 * 1024 * 1024,
  maxManifestBytes: 256 * 1024 * 1024,
  maxFiles: 100_000,
});

export interface RenderImageOptions extends OciRegistryClientOptions {
  readonly credentials?: readonly RegistryCredential[];
  readonly limits?: BundleImageLimits;
  /** How a user raises each image limit (a flag or option name), for the message of an image past one. */
  readonly limitHints?: Partial<Record<keyof BundleImageLimits, string>>;
  readonly catalogLimits?: Partial<CatalogLimits>;
  readonly signal?: AbortSignal;
  /** Called as layer bytes arrive, with the bytes read so far (as stored, over all layers). */
  readonly onProgress?: (bytesRead: number) => void;
}

/** An image's budget that also reports the layer bytes read so far. */
class ReportingBudget extends BundleImageBudget {
  private read = 0;

  constructor(
    limits: BundleImageLimits,
    image: string,
    private readonly onProgress: ((bytesRead: number) => void) | undefined,
  ) {
    super(limits, image);
  }

  override addCompressed(bytes: number, where: string): void {
    super.addCompressed(bytes, where);
    this.read += bytes;
    this.onProgress?.(this.read);
  }
}

const emptyConfig = (): DeclarativeConfig => ({ packages: [], channels: [], bundles: [], deprecations: [], others: [], files: [], errors: [] });

/** The image's error past a limit, with this caller's way to raise it instead of the catalog operator's flags. */
function withLimitHint(error: unknown, hints: RenderImageOptions['limitHints']): unknown {
  const limit = (error as OlmError).details?.limit as keyof BundleImageLimits | undefined;
  if (!(error instanceof OlmError) || error.code !== BundleImageErrorCodes.limitExceeded || !limit) return error;
  const message = error.message.replace(/; a bundle image holds only.*$/s, '');
  return new OlmError(error.code, `${message}; raise ${hints?.[limit] ?? `limits.${limit}`} if the image really is this large`, { details: error.details ?? {}, cause: error });
}

/** The FBC of a catalog image: the files under its configs directory, loaded as a catalog directory is. */
async function renderCatalogFiles(files: ReadonlyMap<string, Buffer>, directory: string, image: string, catalogLimits?: Partial<CatalogLimits>): Promise<DeclarativeConfig> {
  const root = await mkdtemp(join(tmpdir(), 'olm-render-'));
  try {
    for (const [path, bytes] of files) {
      const target = join(root, path.slice(directory.length + 1));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes);
    }
    const config = await loadDeclarativeConfig(root, catalogLimits ? { limits: catalogLimits } : {});
    if (config.errors.length > 0) {
      const problems = config.errors.map((problem) => `  /${directory}/${problem.file}${problem.line === undefined ? '' : `:${problem.line}`}: ${problem.message}`).join('\n');
      throw new OlmError(AuthoringErrorCodes.invalid, `the catalog in image ${image} does not load (${config.errors.length} problem(s)):\n${problems}`);
    }
    return config;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * `opm render` of an image: pulls it with the bundle puller's registry client (every digest checked,
 * bounded by `limits` in aggregate) and tells its kind by its labels, as opm does: a catalog image
 * (`operators.operatorframework.io.index.configs.v1`) gives its FBC, a bundle image
 * (`operators.operatorframework.io.bundle.package.v1`) one `olm.bundle` (see `bundleToFbc`).
 */
export async function renderImage(image: string, options: RenderImageOptions = {}): Promise<DeclarativeConfig> {
  const client = createOciRegistryClient({ userAgent: 'olm', ...options });
  const budget = new ReportingBudget(options.limits ?? defaultRenderImageLimits, image, options.onProgress);
  try {
    const pulled = await client.pullImage(image, { budget, ...(options.credentials ? { credentials: options.credentials } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    const configBytes = await pulled.readConfig?.();
    let labels: Record<string, string> = {};
    try {
      labels = (JSON.parse(configBytes?.toString('utf8') ?? '{}') as { config?: { Labels?: Record<string, string> } }).config?.Labels ?? {};
    } catch {
      // an unreadable configuration has no labels: reported below
    }
    const configs = labels[catalogConfigsLabel];
    if (configs !== undefined) {
      const directory = normalizeTarPath(configs);
      if (!directory) throw new OlmError(AuthoringErrorCodes.notRenderable, `image ${image} names ${JSON.stringify(configs)} as its configs directory (${catalogConfigsLabel}); it must be a directory below the image root, e.g. /configs`);
      const files = await extractImageFiles(pulled.layers, image, budget, [directory]);
      return await renderCatalogFiles(files, directory, image, options.catalogLimits);
    }
    if (labels[BundleAnnotations.package] !== undefined) {
      const problems = new ProblemList();
      const content = parseBundleContent(await extractBundleFiles(pulled.layers, image, budget), problems);
      if (problems.problems.length > 0) throw new OlmError(AuthoringErrorCodes.invalid, `bundle image ${image} cannot be rendered:\n${problems.problems.map((problem) => `  ${formatBundleProblem(problem)}`).join('\n')}`);
      return { ...emptyConfig(), bundles: [bundleToFbc(content, image)] };
    }
    const found = Object.keys(labels).sort().map((key) => `  ${key}=${labels[key]}`);
    throw new OlmError(
      AuthoringErrorCodes.notRenderable,
      `cannot render ${image}: its kind could not be determined, ${found.length > 0 ? `found labels\n${found.join('\n')}` : 'the image has no labels'}\n(a catalog image has the label ${catalogConfigsLabel}, a bundle image ${BundleAnnotations.package})`,
    );
  } catch (error) {
    throw withLimitHint(error, options.limitHints);
  }
}

/** `opm render` of a bundle directory (`manifests/` and `metadata/`): one `olm.bundle` with an empty image and its manifests as `olm.bundle.object`s. */
export function renderBundleFiles(files: ReadonlyMap<string, Buffer>, where: string): DeclarativeConfig {
  const problems = new ProblemList();
  const content = parseBundleContent(files, problems);
  if (problems.problems.length > 0) throw new OlmError(AuthoringErrorCodes.invalid, `bundle ${where} cannot be rendered:\n${problems.problems.map((problem) => `  ${formatBundleProblem(problem)}`).join('\n')}`);
  return { ...emptyConfig(), bundles: [bundleToFbc(content, '')] };
}
