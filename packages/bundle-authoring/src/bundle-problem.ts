/** One finding of `validateBundle`: which rule, where (file and field), what is wrong and how to fix it. */
export interface BundleProblem {
  /** Errors make the bundle invalid (exit 1); warnings are what operator-sdk warns about. */
  readonly severity: 'error' | 'warning';
  /** A stable name for the rule, e.g. `csv-install-modes`. */
  readonly rule: string;
  /** The file, relative to the bundle directory (`manifests/x.clusterserviceversion.yaml`). */
  readonly file: string;
  /** The field path in that file (`spec.installModes[2].type`), or '' for the file as a whole. */
  readonly field: string;
  readonly message: string;
  readonly fix: string;
}

/** Collects problems of one file. */
export class ProblemList {
  readonly problems: BundleProblem[] = [];

  error(rule: string, file: string, field: string, message: string, fix: string): void {
    this.problems.push({ severity: 'error', rule, file, field, message, fix });
  }

  warning(rule: string, file: string, field: string, message: string, fix: string): void {
    this.problems.push({ severity: 'warning', rule, file, field, message, fix });
  }
}

/** `file: field: message (rule); fix`, as the CLI prints a problem. */
export function formatBundleProblem(problem: BundleProblem): string {
  const where = problem.field === '' ? problem.file : `${problem.file}: ${problem.field}`;
  return `${problem.severity === 'error' ? 'ERROR' : 'WARNING'} ${where}: ${problem.message} [${problem.rule}]; fix: ${problem.fix}`;
}
