import { hasErrorCode, SatErrorCodes, type SatLiteral, type SatSolver } from '@olm/core';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import {
  bruteForceModels,
  isSatisfiableByBruteForce,
  pigeonhole,
  randomFormula,
  satisfiesAll,
  seededRandom,
  variablesOf,
} from '../test/support.js';
import { createCdclBackend } from './cdcl-backend.js';

function solverWith(variables: number, clauses: readonly (readonly SatLiteral[])[]): SatSolver {
  const solver = createCdclBackend().createSolver();
  variablesOf(solver, variables);
  for (const clause of clauses) solver.addClause(clause);
  return solver;
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return hasErrorCode(error) ? error.code : String(error);
  }
  return undefined;
}

describe('CDCL SAT backend', () => {
  it('is named cdcl and solves a small problem', () => {
    const backend = createCdclBackend();
    expect(backend.name).toBe('cdcl');
    const solver = backend.createSolver();
    const [a, b, c] = variablesOf(solver, 3) as [number, number, number];
    solver.addClause([a, b]);
    solver.addClause([-a]);
    solver.addClause([-b, c]);
    const outcome = solver.solve();
    expect(outcome.satisfiable && [outcome.value(a), outcome.value(b), outcome.value(c)]).toEqual([false, true, true]);
    solver.dispose();
  });

  it('gives up at maxConflicts with OLM_SAT_LIMIT_EXCEEDED, and stays usable', () => {
    const problem = pigeonhole(8, 7);
    const solver = solverWith(problem.variables, problem.clauses);
    let caught: unknown;
    try {
      solver.solve([], { maxConflicts: 50 });
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, SatErrorCodes.limitExceeded)).toBe(true);
    expect((caught as Error).message).toContain('gave up after 50 conflicts');
    // Without the bound the same solver finishes the proof.
    expect(solver.solve().satisfiable).toBe(false);
    // An easy problem never meets the bound.
    const easy = solverWith(3, [[1, 2], [-1, 3]]);
    expect(easy.solve([-3], { maxConflicts: 1 }).satisfiable).toBe(true);
  });

  it('agrees with brute force on seeded random 3-SAT near the threshold (4.26 clauses per variable)', () => {
    const random = seededRandom(2026);
    const verdicts = { satisfiable: 0, unsatisfiable: 0 };
    for (let instance = 0; instance < 120; instance++) {
      const variables = 4 + (instance % 13); // 4..16
      const formula = randomFormula(random, variables, Math.round(4.26 * variables));
      const expected = isSatisfiableByBruteForce(variables, formula);
      const solver = solverWith(variables, formula);
      const outcome = solver.solve();
      expect(outcome.satisfiable, `instance ${instance}`).toBe(expected);
      if (outcome.satisfiable) expect(satisfiesAll(formula, (variable) => outcome.value(variable))).toBe(true);
      verdicts[expected ? 'satisfiable' : 'unsatisfiable']++;
      solver.dispose();
    }
    // Near the threshold both answers occur often: the comparison tests both directions.
    expect(verdicts.satisfiable).toBeGreaterThan(20);
    expect(verdicts.unsatisfiable).toBeGreaterThan(20);
  });

  it('agrees with the logic-solver backend on larger random 3-SAT and its models satisfy every clause', () => {
    const random = seededRandom(7);
    const reference = createLogicSolverBackend();
    let unsatisfiable = 0;
    for (let instance = 0; instance < 16; instance++) {
      const variables = 80;
      const formula = randomFormula(random, variables, Math.round(4.26 * variables));
      const ours = solverWith(variables, formula);
      const theirs = reference.createSolver();
      variablesOf(theirs, variables);
      for (const clause of formula) theirs.addClause(clause);
      const outcome = ours.solve();
      expect(outcome.satisfiable, `instance ${instance}`).toBe(theirs.solve().satisfiable);
      if (outcome.satisfiable) expect(satisfiesAll(formula, (variable) => outcome.value(variable))).toBe(true);
      else unsatisfiable++;
      ours.dispose();
      theirs.dispose();
    }
    expect(unsatisfiable).toBeGreaterThan(0);
    expect(unsatisfiable).toBeLessThan(16);
  });

  it('proves the pigeonhole principle: 5 pigeons do not fit 4 holes, 4 do', () => {
    for (const [pigeons, holes, expected] of [
      [5, 4, false],
      [6, 5, false],
      [4, 4, true],
    ] as const) {
      const problem = pigeonhole(pigeons, holes);
      const solver = solverWith(problem.variables, problem.clauses);
      const outcome = solver.solve();
      expect(outcome.satisfiable, `${pigeons} into ${holes}`).toBe(expected);
      if (outcome.satisfiable) expect(satisfiesAll(problem.clauses, (variable) => outcome.value(variable))).toBe(true);
      else expect(outcome.failedAssumptions).toEqual([]);
    }
  });

  it('solves under assumptions like brute force; failed assumptions are a subset that is itself unsatisfiable', () => {
    const random = seededRandom(99);
    let failedCases = 0;
    let strictSubsets = 0;
    for (let instance = 0; instance < 60; instance++) {
      const variables = 10;
      const formula = randomFormula(random, variables, 25);
      const solver = solverWith(variables, formula);
      for (let round = 0; round < 6; round++) {
        const assumptions = [...new Set(Array.from({ length: 1 + Math.floor(random() * 5) }, () => 1 + Math.floor(random() * variables)))].map((variable) =>
          random() < 0.5 ? -variable : variable,
        );
        const withAssumptions = [...formula, ...assumptions.map((literal) => [literal])];
        const expected = isSatisfiableByBruteForce(variables, withAssumptions);
        const outcome = solver.solve(assumptions);
        expect(outcome.satisfiable).toBe(expected);
        if (outcome.satisfiable) {
          expect(satisfiesAll(withAssumptions, (variable) => outcome.value(variable))).toBe(true);
          continue;
        }
        const failed = outcome.failedAssumptions;
        expect(failed).toBeDefined();
        for (const literal of failed!) expect(assumptions).toContain(literal);
        expect(isSatisfiableByBruteForce(variables, [...formula, ...failed!.map((literal) => [literal])])).toBe(false);
        expect(solver.solve(failed).satisfiable).toBe(false);
        failedCases++;
        if (failed!.length < assumptions.length) strictSubsets++;
      }
      // Assumptions hold for one call only.
      expect(solver.solve().satisfiable).toBe(isSatisfiableByBruteForce(variables, formula));
      solver.dispose();
    }
    expect(failedCases).toBeGreaterThan(20);
    expect(strictSubsets).toBeGreaterThan(0);
  });

  it('reports contradictory assumptions, and an empty core when the clauses alone are unsatisfiable', () => {
    const solver = createCdclBackend().createSolver();
    const [a, b, c] = variablesOf(solver, 3) as [number, number, number];
    solver.addClause([a, b]);
    const outcome = solver.solve([c, -a, -c]);
    expect(outcome.satisfiable).toBe(false);
    expect(!outcome.satisfiable && [...(outcome.failedAssumptions ?? [])].sort()).toEqual([-c, c].sort());
    // ¬a forces b, so b's negation clashes with the clauses and ¬a; reported as given, b and ¬b conflict directly.
    const second = solver.solve([b, -a, -b]);
    expect(!second.satisfiable && [...(second.failedAssumptions ?? [])].sort()).toEqual([-b, b].sort());
    solver.addClause([-a]);
    solver.addClause([-b]);
    const third = solver.solve([c]);
    expect(third.satisfiable).toBe(false);
    expect(!third.satisfiable && third.failedAssumptions).toEqual([]);
  });

  it('takes clauses between solves (incremental) and stays in step with brute force', () => {
    const random = seededRandom(31337);
    for (let instance = 0; instance < 20; instance++) {
      const variables = 12;
      const solver = createCdclBackend().createSolver();
      variablesOf(solver, variables);
      const formula: SatLiteral[][] = [];
      for (let step = 0; step < 12; step++) {
        for (const clause of randomFormula(random, variables, 5)) {
          solver.addClause(clause);
          formula.push(clause);
        }
        const assumption = (random() < 0.5 ? -1 : 1) * (1 + Math.floor(random() * variables));
        const expectedPlain = isSatisfiableByBruteForce(variables, formula);
        const plain = solver.solve();
        expect(plain.satisfiable).toBe(expectedPlain);
        if (plain.satisfiable) expect(satisfiesAll(formula, (variable) => plain.value(variable))).toBe(true);
        expect(solver.solve([assumption]).satisfiable).toBe(isSatisfiableByBruteForce(variables, [...formula, [assumption]]));
      }
      solver.dispose();
    }
  });

  it('adds variables between solves', () => {
    const solver = createCdclBackend().createSolver();
    const a = solver.newVariable();
    solver.addClause([a]);
    expect(solver.solve().satisfiable).toBe(true);
    const b = solver.newVariable();
    solver.addClause([-a, b]);
    const outcome = solver.solve();
    expect(outcome.satisfiable && outcome.value(b)).toBe(true);
    expect(solver.solve([-b]).satisfiable).toBe(false);
  });

  it('keeps a model valid after later calls', () => {
    const solver = createCdclBackend().createSolver();
    const [a, b] = variablesOf(solver, 2) as [number, number];
    solver.addClause([a, b]);
    const first = solver.solve([a, -b]);
    solver.solve([-a, b]);
    expect(first.satisfiable && [first.value(a), first.value(b)]).toEqual([true, false]);
  });

  it('encodes at-most-one with and without a condition exactly as brute force says, for 1 to 11 literals', () => {
    for (let size = 1; size <= 11; size++) {
      for (const conditional of [false, true]) {
        const solver = createCdclBackend().createSolver();
        const vars = variablesOf(solver, size);
        const condition = solver.newVariable();
        // Mixed signs, to check literals rather than variables are counted.
        const literals = vars.map((variable, position) => (position % 3 === 2 ? -variable : variable));
        solver.addAtMostOne(literals, conditional ? condition : undefined);
        for (let assignment = 0; assignment < 1 << size; assignment++) {
          const fixed = vars.map((variable, position) => ((assignment >> position) & 1 ? variable : -variable));
          const trueLiterals = literals.filter((literal) => fixed.includes(literal)).length;
          for (const conditionValue of conditional ? [true, false] : [true]) {
            const assumptions = conditional ? [...fixed, conditionValue ? condition : -condition] : fixed;
            const expected = trueLiterals <= 1 || !conditionValue;
            expect(solver.solve(assumptions).satisfiable, `size ${size}, assignment ${assignment}, condition ${conditionValue}`).toBe(expected);
          }
        }
        solver.dispose();
      }
    }
  });

  it('treats a literal listed twice in an at-most-one as two', () => {
    for (const size of [3, 9]) {
      const solver = createCdclBackend().createSolver();
      const vars = variablesOf(solver, size);
      solver.addAtMostOne([...vars, vars[1]!]);
      expect(solver.solve([vars[1]!]).satisfiable).toBe(false);
      expect(solver.solve([vars[0]!]).satisfiable).toBe(true);
    }
  });

  it('handles an at-most-one over 1000 literals', () => {
    const solver = createCdclBackend().createSolver();
    const vars = variablesOf(solver, 1000);
    const condition = solver.newVariable();
    solver.addAtMostOne(vars, condition);
    solver.addClause(vars); // and at least one
    const outcome = solver.solve([condition, vars[637]!]);
    expect(outcome.satisfiable && vars.filter((variable) => outcome.value(variable))).toEqual([vars[637]]);
    const free = solver.solve([condition]);
    expect(free.satisfiable && vars.filter((variable) => free.value(variable)).length).toBe(1);
    const clash = solver.solve([condition, vars[3]!, vars[998]!]);
    expect(clash.satisfiable).toBe(false);
    expect(!clash.satisfiable && [...(clash.failedAssumptions ?? [])].sort()).toEqual([condition, vars[3]!, vars[998]!].sort());
    const off = solver.solve([-condition, vars[3]!, vars[998]!, vars[500]!]);
    expect(off.satisfiable).toBe(true);
    solver.dispose();
  });

  it('agrees with the logic-solver backend on random problems mixing clauses, conditional at-most-ones and assumptions', () => {
    const random = seededRandom(4242);
    const reference = createLogicSolverBackend();
    for (let instance = 0; instance < 25; instance++) {
      const ours = createCdclBackend().createSolver();
      const theirs = reference.createSolver();
      const variables = 14;
      variablesOf(ours, variables);
      variablesOf(theirs, variables);
      const clauses = randomFormula(random, variables, 10 + Math.floor(random() * 10), 2 + Math.floor(random() * 2));
      const groups = Array.from({ length: 3 }, () => randomFormula(random, variables, 1, 3 + Math.floor(random() * 8))[0]!);
      const conditions = groups.map(() => (random() < 0.5 ? undefined : 1 + Math.floor(random() * variables)));
      for (const solver of [ours, theirs]) {
        for (const clause of clauses) solver.addClause(clause);
        groups.forEach((group, position) => solver.addAtMostOne(group, conditions[position]));
      }
      // Brute force too: at-most-one over literals, guarded by its condition.
      const models = bruteForceModels(variables, clauses).filter((model) =>
        groups.every((group, position) => {
          const condition = conditions[position];
          if (condition !== undefined && ((model >> (condition - 1)) & 1) === 0) return true;
          return group.filter((literal) => ((model >> (Math.abs(literal) - 1)) & 1) === (literal > 0 ? 1 : 0)).length <= 1;
        }),
      );
      for (let round = 0; round < 5; round++) {
        const assumptions = Array.from({ length: Math.floor(random() * 4) }, () => (random() < 0.5 ? -1 : 1) * (1 + Math.floor(random() * variables)));
        const expected = models.some((model) => assumptions.every((literal) => ((model >> (Math.abs(literal) - 1)) & 1) === (literal > 0 ? 1 : 0)));
        const outcome = ours.solve(assumptions);
        expect(outcome.satisfiable).toBe(expected);
        expect(theirs.solve(assumptions).satisfiable).toBe(expected);
        if (!outcome.satisfiable) expect(ours.solve(outcome.failedAssumptions).satisfiable).toBe(false);
      }
      ours.dispose();
      theirs.dispose();
    }
  });

  it('is unsatisfiable for good after an empty clause', () => {
    const solver = createCdclBackend().createSolver();
    const a = solver.newVariable();
    solver.addClause([]);
    expect(solver.solve().satisfiable).toBe(false);
    solver.addClause([a]);
    const outcome = solver.solve([a]);
    expect(outcome.satisfiable).toBe(false);
    expect(!outcome.satisfiable && outcome.failedAssumptions).toEqual([]);
  });

  it('rejects literals naming no variable, with OLM_SAT_INVALID_LITERAL, and changes nothing', () => {
    const solver = createCdclBackend().createSolver();
    const a = solver.newVariable();
    for (const bad of [0, 2, -2, 1.5, Number.NaN]) {
      expect(codeOf(() => solver.addClause([a, bad])), String(bad)).toBe(SatErrorCodes.invalidLiteral);
    }
    expect(codeOf(() => solver.addAtMostOne([a, 7]))).toBe(SatErrorCodes.invalidLiteral);
    expect(codeOf(() => solver.addAtMostOne([a], 9))).toBe(SatErrorCodes.invalidLiteral);
    expect(codeOf(() => solver.solve([-5]))).toBe(SatErrorCodes.invalidLiteral);
    // The bad clause [a, 2] was not half-added: -a is still satisfiable.
    const outcome = solver.solve([-a]);
    expect(outcome.satisfiable).toBe(true);
    if (outcome.satisfiable) {
      expect(codeOf(() => outcome.value(2))).toBe(SatErrorCodes.invalidLiteral);
      expect(codeOf(() => outcome.value(0))).toBe(SatErrorCodes.invalidLiteral);
    }
  });

  it('does not expose at-most-one auxiliaries as variables', () => {
    const solver = createCdclBackend().createSolver();
    const vars = variablesOf(solver, 10);
    solver.addAtMostOne(vars);
    expect(codeOf(() => solver.addClause([11]))).toBe(SatErrorCodes.invalidLiteral);
    expect(solver.newVariable()).toBe(11);
  });

  it('throws OLM_SAT_SOLVER_UNUSABLE after dispose', () => {
    const solver = createCdclBackend().createSolver();
    const a = solver.newVariable();
    solver.dispose();
    solver.dispose(); // twice is fine
    expect(codeOf(() => solver.solve())).toBe(SatErrorCodes.solverUnusable);
    expect(codeOf(() => solver.newVariable())).toBe(SatErrorCodes.solverUnusable);
    expect(codeOf(() => solver.addClause([a]))).toBe(SatErrorCodes.solverUnusable);
    expect(codeOf(() => solver.addAtMostOne([a]))).toBe(SatErrorCodes.solverUnusable);
  });
});
