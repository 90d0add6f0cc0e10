import { hasErrorCode, SatErrorCodes } from '@olm/core';
import { describe, expect, it, vi } from 'vitest';
import { createLogicSolverBackend } from './logic-solver-backend.js';

describe('logic-solver SAT backend', () => {
  it('solves clauses and reports values', () => {
    const solver = createLogicSolverBackend().createSolver();
    const [a, b, c] = [solver.newVariable(), solver.newVariable(), solver.newVariable()];
    solver.addClause([a, b]);
    solver.addClause([-a]);
    solver.addClause([-b, c]);
    const outcome = solver.solve();
    expect(outcome.satisfiable).toBe(true);
    if (outcome.satisfiable) expect([outcome.value(a), outcome.value(b), outcome.value(c)]).toEqual([false, true, true]);
    solver.dispose();
  });

  it('holds assumptions for one call only', () => {
    const solver = createLogicSolverBackend().createSolver();
    const [a, b] = [solver.newVariable(), solver.newVariable()];
    solver.addClause([-a, -b]);
    expect(solver.solve([a, b]).satisfiable).toBe(false);
    const outcome = solver.solve([b]);
    expect(outcome.satisfiable && outcome.value(b) && !outcome.value(a)).toBe(true);
    expect(solver.solve([a]).satisfiable).toBe(true);
  });

  it('enforces at-most-one over many literals', () => {
    const solver = createLogicSolverBackend().createSolver();
    const vars = Array.from({ length: 8 }, () => solver.newVariable());
    solver.addAtMostOne(vars);
    expect(solver.solve([vars[2]!, vars[6]!]).satisfiable).toBe(false);
    const outcome = solver.solve([vars[5]!]);
    expect(outcome.satisfiable && vars.filter((v) => outcome.value(v))).toEqual([vars[5]]);
  });

  it('rejects literals it never created and use after dispose, with codes', () => {
    const solver = createLogicSolverBackend().createSolver();
    const a = solver.newVariable();
    expect(() => solver.addClause([a, 7])).toThrowError(/literal 7 names no variable/);
    solver.dispose();
    let caught: unknown;
    try {
      solver.solve();
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, SatErrorCodes.solverUnusable)).toBe(true);
  });

  it('applies a conditional at-most-one only while its condition holds', () => {
    const solver = createLogicSolverBackend().createSolver();
    const condition = solver.newVariable();
    const vars = Array.from({ length: 6 }, () => solver.newVariable());
    solver.addAtMostOne(vars, condition);
    expect(solver.solve([condition, vars[0]!, vars[4]!]).satisfiable).toBe(false);
    expect(solver.solve([-condition, vars[0]!, vars[4]!]).satisfiable).toBe(true);
  });

  it('keeps problems apart although they share one MiniSat instance', () => {
    const backend = createLogicSolverBackend();
    const first = backend.createSolver();
    const a = first.newVariable();
    first.addClause([-a]);
    const second = backend.createSolver();
    const b = second.newVariable();
    // The first problem forbids its variable; the second problem's variable 1 is its own.
    expect(second.solve([b]).satisfiable).toBe(true);
    expect(first.solve([a]).satisfiable).toBe(false);
    first.dispose();
    const third = backend.createSolver();
    const c = third.newVariable();
    expect(third.solve([c]).satisfiable).toBe(true);
    expect(second.solve([b]).satisfiable).toBe(true);
  });

  it('turns a MiniSat heap abort into OLM_SAT_RESOURCE_EXHAUSTED, then starts a fresh instance', () => {
    const backend = createLogicSolverBackend();
    const solver = backend.createSolver();
    // MiniSat prints its abort notice through console.log: the backend keeps it out of the output.
    const printed: unknown[][] = [];
    const quiet = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args));
    let caught: unknown;
    const variables = Array.from({ length: 3000 }, () => solver.newVariable());
    try {
      // Long random clauses fill the fixed 64 MiB heap within a few hundred thousand clauses.
      let state = 7;
      const next = () => (state = (state * 1103515245 + 12345) % 2147483648) % variables.length;
      for (let clause = 0; clause < 2_000_000; clause++) {
        solver.addClause(Array.from({ length: 40 }, () => (next() % 2 === 0 ? 1 : -1) * variables[next()]!));
      }
    } catch (error) {
      caught = error;
    } finally {
      quiet.mockRestore();
    }
    expect(hasErrorCode(caught, SatErrorCodes.resourceExhausted)).toBe(true);
    expect((caught as Error).message).toContain('64 MiB heap (Cannot enlarge memory arrays');
    expect(printed).toEqual([]);
    expect(() => solver.solve()).toThrowError(/ran out of memory earlier/);
    const fresh = backend.createSolver();
    const x = fresh.newVariable();
    fresh.addClause([x]);
    expect(fresh.solve().satisfiable).toBe(true);
  });
});
