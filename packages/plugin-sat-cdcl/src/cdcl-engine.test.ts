import { describe, expect, it } from 'vitest';
import { pigeonhole, randomFormula, satisfiesAll, seededRandom } from '../test/support.js';
import { CdclEngine, luby } from './cdcl-engine.js';

function engineWith(variables: number, clauses: readonly (readonly number[])[]): CdclEngine {
  const engine = new CdclEngine();
  for (let v = 0; v < variables; v++) engine.newVariable();
  for (const clause of clauses) engine.addClause(clause);
  return engine;
}

describe('CdclEngine', () => {
  it('follows the Luby sequence for restarts', () => {
    expect(Array.from({ length: 15 }, (_, index) => luby(index))).toEqual([1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
  });

  it('numbers variables from 1 and grows past its initial capacity', () => {
    const engine = new CdclEngine();
    const numbers = Array.from({ length: 100 }, () => engine.newVariable());
    expect(numbers[0]).toBe(1);
    expect(numbers[99]).toBe(100);
    // A chain 1 → 2 → … → 100 propagates through the grown arrays.
    for (let v = 1; v < 100; v++) engine.addClause([-v, v + 1]);
    const outcome = engine.solve([1]);
    expect(outcome.satisfiable && outcome.model[99]).toBe(1);
  });

  it('learns clauses, restarts and reduces its learnt clauses on a hard instance, and still answers correctly', () => {
    const problem = pigeonhole(8, 7);
    const engine = engineWith(problem.variables, problem.clauses);
    const outcome = engine.solve();
    expect(outcome.satisfiable).toBe(false);
    const statistics = engine.statistics;
    expect(statistics.conflicts).toBeGreaterThan(1000);
    expect(statistics.restarts).toBeGreaterThan(0);
    // The limit starts at 2000 learnt clauses; more conflicts than that means reduction ran.
    expect(statistics.learnts).toBeLessThan(statistics.conflicts);
  });

  it('finds models of satisfiable random instances with many variables', () => {
    const random = seededRandom(5);
    const formula = randomFormula(random, 200, 800);
    const engine = engineWith(200, formula);
    const outcome = engine.solve();
    expect(outcome.satisfiable).toBe(true);
    if (outcome.satisfiable) expect(satisfiesAll(formula, (variable) => outcome.model[variable - 1] === 1)).toBe(true);
  });

  it('drops tautologies and duplicate literals and keeps level-0 facts between solves', () => {
    const engine = engineWith(3, [[1, -1], [2, 2], [-2, 3]]);
    const outcome = engine.solve();
    expect(outcome.satisfiable && [...outcome.model]).toEqual([0, 1, 1]);
    expect(engine.statistics.clauses).toBe(0); // all three were simplified away or became facts
    const refuted = engine.solve([-3]);
    expect(refuted).toEqual({ satisfiable: false, failedAssumptions: [-3] });
  });
});
