import type { CatalogProblem } from './catalog-problem.js';
import { formatProblem } from './catalog-problem.js';
import { buildCatalog } from './build-catalog.js';
import type { CatalogOptions } from './build-catalog.js';
import { loadDeclarativeConfig } from './load-declarative-config.js';
import type { LoadDeclarativeConfigOptions } from './load-declarative-config.js';

/** The result of `validateCatalog`: what `opm validate` checks, with every error listed. */
export interface ValidationReport {
  readonly valid: boolean;
  /** Every error: load problems first (by file), then conversion errors, then model errors. */
  readonly errors: readonly CatalogProblem[];
  /** Problems opm accepts but OLM would reject when resolving. */
  readonly warnings: readonly CatalogProblem[];
  /** Upstream's `invalid index:` tree of the model errors, when there are any. */
  readonly tree?: string;
  /** Human-readable report: one line per error with its location, then its hint. */
  readonly text: string;
  /** What was checked (absent when files failed to load). */
  readonly counts?: { readonly packages: number; readonly channels: number; readonly bundles: number };
}

/** Formats problems as `file:line: message` lines, each followed by an indented hint. */
export function formatProblems(problems: readonly CatalogProblem[]): string {
  return problems.map((problem) => `${formatProblem(problem)}\n    hint: ${problem.hint}`).join('\n');
}

/**
 * Validates a catalog directory with every `opm validate` rule, collecting all errors (opm stops
 * at the first). When files fail to load, only load problems are reported: checking a partly
 * loaded catalog would report consequences, not causes. Throws `OLM_REGISTRY_INPUT` when `dir`
 * itself cannot be read.
 */
export async function validateCatalog(dir: string, options: CatalogOptions & LoadDeclarativeConfigOptions = {}): Promise<ValidationReport> {
  const config = await loadDeclarativeConfig(dir, options);
  if (config.errors.length > 0) {
    const errors = config.errors.map((problem): CatalogProblem => ({ ...problem, rule: 'load', stage: 'load' }));
    return { valid: false, errors, warnings: [], text: formatProblems(errors) };
  }
  const result = buildCatalog(config, options);
  const sections = [formatProblems(result.errors)];
  if (result.tree !== undefined) sections.push(result.tree);
  if (result.warnings.length > 0) sections.push(`warnings:\n${formatProblems(result.warnings)}`);
  const counts = {
    packages: config.packages.length,
    channels: config.channels.length,
    bundles: config.bundles.length,
  };
  return {
    valid: result.errors.length === 0,
    counts,
    errors: result.errors,
    warnings: result.warnings,
    ...(result.tree === undefined ? {} : { tree: result.tree }),
    text: sections.filter((section) => section !== '').join('\n'),
  };
}
