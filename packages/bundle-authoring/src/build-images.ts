import { OlmError } from '@olm/core';
import { loadDeclarativeConfig, type CatalogLimits, type LoadProblem } from '@olm/registry';
import { AuthoringErrorCodes, defaultAuthoringLimits, type AuthoringLimits } from './authoring-limits.js';
import { catalogConfigsLabel } from './bundle-content.js';
import { formatBundleProblem } from './bundle-problem.js';
import { buildOciImage, type OciImage } from './image/oci-image.js';
import { readDirectoryFiles } from './read-directory.js';
import { validateBundleFiles, type BundleValidation } from './validate-bundle.js';

/**
 * The bundle image of a bundle directory, as operator-sdk's `bundle.Dockerfile` builds it: `manifests/`
 * and `metadata/` at the image root, every annotation of `metadata/annotations.yaml` as a label (opm
 * and OLM tell a bundle image by its `…bundle.package.v1` label). A bundle with validation errors is
 * refused (`OLM_AUTHORING_INVALID`, the problems in the message and in `details.problems`).
 */
export async function buildBundleImage(dir: string, limits: AuthoringLimits = defaultAuthoringLimits): Promise<{ image: OciImage; validation: BundleValidation }> {
  const files = await readDirectoryFiles(dir, limits);
  const validation = validateBundleFiles(files);
  if (!validation.valid) {
    const errors = validation.problems.filter((problem) => problem.severity === 'error');
    throw new OlmError(AuthoringErrorCodes.invalid, `bundle ${dir} is not valid (${errors.length} error(s)); fix it before building:\n${errors.map((problem) => `  ${formatBundleProblem(problem)}`).join('\n')}`, {
      details: { problems: errors },
    });
  }
  const content = new Map([...files].filter(([path]) => /^(manifests|metadata)\//.test(path)));
  const image = await buildOciImage(content, validation.content.annotations?.values ?? {});
  return { image, validation };
}

const describeLoadProblems = (problems: readonly LoadProblem[]) =>
  problems.map((problem) => `  ${problem.file}${problem.line === undefined ? '' : `:${problem.line}`}: ${problem.message}`).join('\n');

/**
 * The catalog image of a file-based catalog directory, laid out as upstream's catalog images are: the
 * catalog's files under `/configs`, and the label `operators.operatorframework.io.index.configs.v1=/configs`.
 * The catalog is loaded first (bounded by `catalogLimits`); one that does not load is refused.
 */
export async function buildCatalogImage(dir: string, options: { limits?: AuthoringLimits; catalogLimits?: Partial<CatalogLimits> } = {}): Promise<OciImage> {
  const config = await loadDeclarativeConfig(dir, { ...(options.catalogLimits ? { limits: options.catalogLimits } : {}) });
  if (config.errors.length > 0) {
    throw new OlmError(AuthoringErrorCodes.invalid, `catalog ${dir} does not load (${config.errors.length} problem(s)); fix it before building:\n${describeLoadProblems(config.errors)}`);
  }
  const files = await readDirectoryFiles(dir, options.limits ?? defaultAuthoringLimits);
  const content = new Map([...files].map(([path, bytes]) => [`configs/${path}`, bytes] as const));
  return buildOciImage(content, { [catalogConfigsLabel]: '/configs' });
}
