import { hasErrorCode, OlmError, SatErrorCodes, type SatBackend } from '@olm/core';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { ResolverErrorCodes } from './errors.js';
import { emptyStats, solveVariables, type SolverConstraint, type SolverVariable } from './solver.js';

const backend = createLogicSolverBackend();
const v = (id: string, ...constraints: SolverConstraint[]): SolverVariable => ({ id, constraints });
const mandatory: SolverConstraint = { kind: 'mandatory' };
const prohibited: SolverConstraint = { kind: 'prohibited' };
const dependency = (...ids: string[]): SolverConstraint => ({ kind: 'dependency', ids });
const conflict = (id: string): SolverConstraint => ({ kind: 'conflict', id });

function unsatisfiable(variables: SolverVariable[]): OlmError {
  try {
    solveVariables(variables, backend);
  } catch (error) {
    if (hasErrorCode(error, ResolverErrorCodes.unsatisfiable)) return error;
    throw error;
  }
  throw new Error('expected the problem to be unsatisfiable');
}

// Upstream's TestSolve table lives in test/cases/solver-*/ (run by test/solver-cases.test.ts);
// these are the messages, the minimal core, stats and backend failures around it.
describe('solveVariables', () => {
  it('reports two mandatory variables in conflict, and only what conflicts (a minimal core)', () => {
    const error = unsatisfiable([v('a', mandatory), v('b', mandatory, conflict('a')), v('c', mandatory, dependency('d')), v('d')]);
    expect(error.message).toBe('constraints not satisfiable: a is mandatory, b conflicts with a, b is mandatory');
    expect((error.details['constraints'] as Array<{ variable: string }>).map((each) => each.variable).sort()).toEqual(['a', 'b', 'b']);
  });

  it('uses a constraint message when given, and sorts messages', () => {
    const error = unsatisfiable([v('x', { kind: 'mandatory', message: 'zeta needs x' }), v('y', { kind: 'mandatory', message: 'alpha needs y' }, conflict('x'))]);
    expect(error.message).toBe('constraints not satisfiable: alpha needs y, y conflicts with x, zeta needs x');
  });

  it('explains a dependency with no candidates', () => {
    const error = unsatisfiable([v('a', mandatory, dependency())]);
    expect(error.message).toBe('constraints not satisfiable: a has a dependency without any candidates to satisfy it, a is mandatory');
  });

  it('rejects duplicate identifiers and references to missing variables', () => {
    expect(() => solveVariables([v('a'), v('a')], backend)).toThrowError('duplicate identifier "a" in input');
    expect(() => solveVariables([v('a', dependency('b'))], backend)).toThrowError('variable "b" referenced but not provided');
  });

  it('counts solver calls, variables and clauses', () => {
    const stats = emptyStats();
    solveVariables([v('a', mandatory, dependency('x', 'y')), v('x', prohibited), v('y')], backend, stats);
    expect(stats.solverCalls).toBeGreaterThanOrEqual(1);
    expect(stats.variables).toBeGreaterThanOrEqual(3);
    expect(stats.clauses).toBeGreaterThanOrEqual(1);
  });

  it('retries once on a fresh solver when the backend runs out of room, and reports a lasting failure', () => {
    const failing = (failures: number): SatBackend => {
      let left = failures;
      return {
        name: 'flaky',
        createSolver: () => {
          const inner = backend.createSolver();
          const exhausted = left-- > 0;
          return {
            newVariable: () => inner.newVariable(),
            addClause: (literals) => inner.addClause(literals),
            addAtMostOne: (literals, condition) => inner.addAtMostOne(literals, condition),
            solve: (assumptions) => {
              if (exhausted) throw new OlmError(SatErrorCodes.resourceExhausted, 'out of heap');
              return inner.solve(assumptions);
            },
            dispose: () => inner.dispose(),
          };
        },
      };
    };
    const problem = [v('a', mandatory, dependency('b')), v('b')];
    expect(solveVariables(problem, failing(1))).toEqual(['a', 'b']);
    let caught: unknown;
    try {
      solveVariables(problem, failing(2));
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, SatErrorCodes.resourceExhausted)).toBe(true);
  });
});
