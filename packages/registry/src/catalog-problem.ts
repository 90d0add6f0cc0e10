/**
 * One problem of a catalog: upstream's message verbatim, where it is (file and line where known,
 * and the package/channel/bundle it concerns), a stable rule id, and a hint how to fix it.
 */
export interface CatalogProblem {
  /** `OLM_REGISTRY_LOAD` (the files) or `OLM_REGISTRY_INVALID` (the catalog's content). */
  readonly code: string;
  /** Stable id of the rule that was broken, e.g. `duplicate-package`, `multiple-channel-heads`. */
  readonly rule: string;
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
  readonly package?: string;
  readonly channel?: string;
  readonly bundle?: string;
  readonly hint: string;
}

/** `pkg/catalog.yaml:12: package "foo", channel "alpha": <message>`. */
export function formatProblem(problem: CatalogProblem): string {
  const where = problem.file === undefined ? '' : problem.line === undefined ? `${problem.file}: ` : `${problem.file}:${problem.line}: `;
  return `${where}${problem.message}`;
}
