import { hasErrorCode, OlmError, SatErrorCodes, type SatBackend } from '@olm/core';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { ResolverErrorCodes } from './errors.js';
import { emptyStats, solveVariables, type SolverConstraint, type SolverVariable } from './solver.js';

// Re-creates upstream's solver TestSolve table (solver/solve_test.go) against the SAT contract.
const backend = createLogicSolverBackend();
const v = (id: string, ...constraints: SolverConstraint[]): SolverVariable => ({ id, constraints });
const mandatory: SolverConstraint = { kind: 'mandatory' };
const prohibited: SolverConstraint = { kind: 'prohibited' };
const dependency = (...ids: string[]): SolverConstraint => ({ kind: 'dependency', ids });
const conflict = (id: string): SolverConstraint => ({ kind: 'conflict', id });
const atMost = (n: number, ...ids: string[]): SolverConstraint => ({ kind: 'atMost', n, ids });

function unsatisfiable(variables: SolverVariable[]): OlmError {
  try {
    solveVariables(variables, backend);
  } catch (error) {
    if (hasErrorCode(error, ResolverErrorCodes.unsatisfiable)) return error;
    throw error;
  }
  throw new Error('expected the problem to be unsatisfiable');
}

describe('solveVariables (upstream TestSolve)', () => {
  const cases: Array<{ name: string; variables: SolverVariable[]; installed: string[] }> = [
    { name: 'no variables', variables: [], installed: [] },
    { name: 'unnecessary variable is not installed', variables: [v('a')], installed: [] },
    { name: 'single mandatory variable is installed', variables: [v('a', mandatory)], installed: ['a'] },
    { name: 'both dependencies are installed', variables: [v('a', mandatory, dependency('b')), v('b')], installed: ['a', 'b'] },
    {
      name: 'transitive dependency is installed',
      variables: [v('a', mandatory, dependency('b')), v('b', dependency('c')), v('c')],
      installed: ['a', 'b', 'c'],
    },
    { name: 'both mandatory', variables: [v('a', mandatory), v('b', mandatory)], installed: ['a', 'b'] },
    { name: 'first dependency is preferred', variables: [v('a', mandatory, dependency('b', 'c')), v('b'), v('c')], installed: ['a', 'b'] },
    {
      name: 'preferred dependency conflicts, so the second is taken',
      variables: [v('a', mandatory, dependency('b', 'c')), v('b', conflict('a')), v('c')],
      installed: ['a', 'c'],
    },
    { name: 'reversed order is respected', variables: [v('a', mandatory, dependency('c', 'b')), v('b'), v('c')], installed: ['a', 'c'] },
    {
      name: 'irrelevant dependencies do not influence search order',
      variables: [v('a', dependency('x', 'y')), v('b', mandatory, dependency('y', 'x')), v('x'), v('y')],
      installed: ['b', 'y'],
    },
    {
      name: 'cardinality constraint prevents resolution of a less preferred candidate',
      variables: [v('a', mandatory, dependency('x', 'y'), atMost(1, 'x', 'y')), v('x', mandatory), v('y')],
      installed: ['a', 'x'],
    },
    {
      name: 'cardinality constraint forces alternative',
      variables: [v('a', mandatory, dependency('x', 'y'), atMost(1, 'x', 'y')), v('b', mandatory, dependency('y')), v('x'), v('y')],
      installed: ['a', 'b', 'y'],
    },
    {
      name: 'two dependencies satisfied by one variable',
      variables: [v('a', mandatory, dependency('y')), v('b', mandatory, dependency('x', 'y')), v('x'), v('y')],
      installed: ['a', 'b', 'y'],
    },
    {
      name: 'foo two dependencies satisfied by one variable',
      variables: [v('a', mandatory, dependency('y', 'z', 'm')), v('b', mandatory, dependency('x', 'y')), v('x'), v('y'), v('z'), v('m')],
      installed: ['a', 'b', 'y'],
    },
    {
      name: 'result size larger than minimum due to preference',
      variables: [v('a', mandatory, dependency('x', 'y')), v('b', mandatory, dependency('y')), v('x'), v('y')],
      installed: ['a', 'b', 'x', 'y'],
    },
    {
      name: 'only the least preferable choice is acceptable',
      variables: [v('a', mandatory, dependency('a1', 'a2')), v('a1', conflict('c1'), conflict('c2')), v('a2', conflict('c1')), v('b', mandatory, dependency('b1')), v('b1'), v('c', mandatory, dependency('c1', 'c2')), v('c1'), v('c2')],
      installed: ['a', 'a2', 'b', 'b1', 'c', 'c2'],
    },
    {
      name: 'preferences respected with multiple dependencies per variable',
      variables: [v('a', mandatory, dependency('x1', 'x2'), dependency('y1', 'y2')), v('x1'), v('x2'), v('y1'), v('y2')],
      installed: ['a', 'x1', 'y1'],
    },
  ];

  for (const { name, variables, installed } of cases) {
    it(name, () => {
      expect(solveVariables(variables, backend)).toEqual(installed);
    });
  }

  it('reports mandatory and prohibited on one variable', () => {
    const error = unsatisfiable([v('a', mandatory, prohibited)]);
    expect(error.message).toBe('constraints not satisfiable: a is mandatory, a is prohibited');
  });

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
