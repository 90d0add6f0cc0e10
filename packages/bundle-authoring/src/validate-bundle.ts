import { csvsOf, parseBundleContent, type BundleContent } from './bundle-content.js';
import { ProblemList, type BundleProblem } from './bundle-problem.js';
import { defaultAuthoringLimits, type AuthoringLimits } from './authoring-limits.js';
import { readDirectoryFiles, type DirectoryFiles } from './read-directory.js';
import { checkBundleAnnotations } from './rules/annotation-rules.js';
import { checkOwnedCrds } from './rules/crd-rules.js';
import { checkCsv } from './rules/csv-rules.js';

export interface BundleValidation {
  readonly content: BundleContent;
  /** Errors first, then warnings; each in file order. */
  readonly problems: readonly BundleProblem[];
  readonly valid: boolean;
}

/** Validates a bundle's files (from a directory or an image): layout, annotations, the one CSV, its CRDs. */
export function validateBundleFiles(files: DirectoryFiles): BundleValidation {
  const problems = new ProblemList();
  const content = parseBundleContent(files, problems);
  checkBundleAnnotations(files, content, problems);
  const csvs = csvsOf(content);
  if (csvs.length !== 1 && files.size > 0) {
    problems.error(
      'manifests-csv',
      'manifests/',
      '',
      csvs.length === 0 ? 'holds no ClusterServiceVersion' : `holds ${csvs.length} ClusterServiceVersions (${csvs.map((entry) => entry.file).join(', ')})`,
      'a bundle has exactly one ClusterServiceVersion; one bundle per version of the operator',
    );
  }
  for (const { file, csv } of csvs) {
    checkCsv(file, csv, problems);
    checkOwnedCrds(file, csv, content.manifests, problems);
  }
  const sorted = [...problems.problems].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  return { content, problems: sorted, valid: !sorted.some((problem) => problem.severity === 'error') };
}

/** Reads a bundle directory (within `limits`) and validates it as operator-sdk's default validators do. */
export async function validateBundle(dir: string, limits: AuthoringLimits = defaultAuthoringLimits): Promise<BundleValidation & { readonly files: DirectoryFiles }> {
  const files = await readDirectoryFiles(dir, limits);
  return { ...validateBundleFiles(files), files };
}
