import { createSingleExtensionPoint } from '../kernel/extension-point.js';

/** A literal: a positive variable number, or its negation. Variables are numbered from 1. */
export type SatLiteral = number;

export type SatOutcome =
  | { readonly satisfiable: true; value(variable: number): boolean }
  | { readonly satisfiable: false; readonly failedAssumptions?: readonly SatLiteral[] };

/** Bounds on one `solve` call. A backend that cannot enforce a bound ignores it (its README says so). */
export interface SatSolveOptions {
  /**
   * Give up after this many conflicts (dead ends of the search) in this call, throwing
   * `OLM_SAT_LIMIT_EXCEEDED`; the solver stays usable. OLM's problems meet a few dozen at most;
   * a catalog built to encode a hard combinatorial problem meets millions.
   */
  readonly maxConflicts?: number;
}

/**
 * One incremental SAT problem. Discard it after `dispose()` or after it throws: a backend that runs
 * out of memory throws `OLM_SAT_RESOURCE_EXHAUSTED` and must not be used again.
 */
export interface SatSolver {
  newVariable(): number;
  addClause(literals: readonly SatLiteral[]): void;
  /**
   * At most one of the literals is true. With `condition`, only while that literal is true (callers
   * switch constraints on and off through assumptions to explain conflicts).
   */
  addAtMostOne(literals: readonly SatLiteral[], condition?: SatLiteral): void;
  /**
   * Solves under assumptions, which hold for this call only. When unsatisfiable, a backend may
   * report the assumptions it used to prove it (`failedAssumptions`, a subset of `assumptions`);
   * callers compute a core themselves when it does not.
   */
  solve(assumptions?: readonly SatLiteral[], options?: SatSolveOptions): SatOutcome;
  dispose(): void;
}

/** Stable codes of errors SAT backends throw. */
export const SatErrorCodes = {
  /** The backend ran out of memory or another fixed resource; the solver is unusable afterwards. */
  resourceExhausted: 'OLM_SAT_RESOURCE_EXHAUSTED',
  /** The solver was used after `dispose()` or after it threw. */
  solverUnusable: 'OLM_SAT_SOLVER_UNUSABLE',
  /** A literal named a variable that `newVariable()` never returned. */
  invalidLiteral: 'OLM_SAT_INVALID_LITERAL',
  /** A `solve` gave up at a bound of `SatSolveOptions` (the solver stays usable). */
  limitExceeded: 'OLM_SAT_LIMIT_EXCEEDED',
} as const;

export interface SatBackend {
  readonly name: string;
  createSolver(): SatSolver;
}

export const satBackend = createSingleExtensionPoint<SatBackend>({
  id: 'olm.satBackend',
  description: 'the SAT solver the resolver uses',
  hint: 'boot a SAT backend plugin such as @olm/plugin-sat-logic-solver',
});
