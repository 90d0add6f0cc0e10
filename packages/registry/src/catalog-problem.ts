import { formatPosition } from './declarative-config.js';

/**
 * One problem of a catalog: upstream's message verbatim, where it is (file and line where known,
 * and the package/channel/bundle it concerns), a stable rule id, and a hint how to fix it.
 */
export interface CatalogProblem {
  /** `OLM_REGISTRY_LOAD` (the files) or `OLM_REGISTRY_INVALID` (the catalog's content). */
  readonly code: string;
  /** Stable id of the rule that was broken, e.g. `duplicate-package`, `multiple-channel-heads`. */
  readonly rule: string;
  /**
   * Where upstream finds it: `load` (reading files), `convert` (ConvertToModel: opm reports the
   * first of these) or `model` (model.Validate: opm reports them all as its `invalid index:` tree).
   */
  readonly stage?: 'load' | 'convert' | 'model';
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
  readonly package?: string;
  readonly channel?: string;
  readonly bundle?: string;
  readonly hint: string;
}

/** `pkg/catalog.yaml:12: <message>`. */
export function formatProblem(problem: CatalogProblem): string {
  const where = formatPosition(problem);
  return where === '' ? problem.message : `${where}: ${problem.message}`;
}
