import { createSingleExtensionPoint } from '../kernel/extension-point.js';

/** A literal: a positive variable number, or its negation. Variables are numbered from 1. */
export type SatLiteral = number;

export type SatOutcome =
  | { readonly satisfiable: true; value(variable: number): boolean }
  | { readonly satisfiable: false; readonly failedAssumptions?: readonly SatLiteral[] };

/** One incremental SAT problem. Discard it after `dispose()` or after it throws. */
export interface SatSolver {
  newVariable(): number;
  addClause(literals: readonly SatLiteral[]): void;
  /** At most one of the literals is true. */
  addAtMostOne(literals: readonly SatLiteral[]): void;
  /** Solves under assumptions, which hold for this call only. */
  solve(assumptions?: readonly SatLiteral[]): SatOutcome;
  dispose(): void;
}

export interface SatBackend {
  readonly name: string;
  createSolver(): SatSolver;
}

export const satBackend = createSingleExtensionPoint<SatBackend>({
  id: 'olm.satBackend',
  description: 'the SAT solver the resolver uses',
  hint: 'boot a SAT backend plugin such as @olm/plugin-sat-logic-solver',
});
