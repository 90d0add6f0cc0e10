import { boot, contribute, definePlugin, satBackend, type SatBackend, type SatLiteral, type SatSolver } from '@olm/core';
import { satLogicSolverPlugin } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { resolverFromKernel, resolverPlugin, type ResolveInput } from '../src/index.js';
import { bundle, catalog, gvk, pkg } from './catalog-builder.js';

/** A tiny DPLL solver (unit propagation + branching), enough for small problems. */
function dpllBackend(calls: { count: number }): SatBackend {
  return {
    name: 'tiny-dpll',
    createSolver(): SatSolver {
      let variables = 0;
      const clauses: SatLiteral[][] = [];
      return {
        newVariable: () => ++variables,
        addClause: (literals) => void clauses.push([...literals]),
        addAtMostOne: (literals, condition) => {
          const guard = condition === undefined ? [] : [-condition];
          for (let i = 0; i < literals.length; i++) for (let j = i + 1; j < literals.length; j++) clauses.push([-literals[i]!, -literals[j]!, ...guard]);
        },
        solve(assumptions = []) {
          calls.count++;
          const model = dpll([...clauses, ...assumptions.map((literal) => [literal])], new Map());
          return model ? { satisfiable: true, value: (variable) => model.get(variable) === true } : { satisfiable: false };
        },
        dispose: () => {},
      };
    },
  };
}

function dpll(clauses: SatLiteral[][], assignment: Map<number, boolean>): Map<number, boolean> | undefined {
  const value = (literal: number) => {
    const assigned = assignment.get(Math.abs(literal));
    return assigned === undefined ? undefined : assigned === literal > 0;
  };
  for (;;) {
    let unit: number | undefined;
    for (const clause of clauses) {
      if (clause.some((literal) => value(literal) === true)) continue;
      const open = clause.filter((literal) => value(literal) === undefined);
      if (open.length === 0) return undefined;
      if (open.length === 1) {
        unit = open[0]!;
        break;
      }
    }
    if (unit === undefined) break;
    assignment.set(Math.abs(unit), unit > 0);
  }
  const free = clauses.flat().map(Math.abs).find((variable) => !assignment.has(variable));
  if (free === undefined) return assignment;
  for (const choice of [false, true]) {
    const result = dpll(clauses, new Map(assignment).set(free, choice));
    if (result) return result;
  }
  return undefined;
}

const input: ResolveInput = {
  namespace: 'operators',
  catalogs: [
    {
      name: 'community',
      namespace: 'olm',
      content: catalog(
        pkg('app', 'stable', { stable: [{ name: 'app.v1' }, { name: 'app.v2', replaces: 'app.v1' }] }, [
          bundle('app.v1', 'app', '1.0.0', { requires: [gvk('Database')] }),
          bundle('app.v2', 'app', '2.0.0', { requires: [gvk('Database')] }),
        ]),
        pkg('db', 'stable', { stable: [{ name: 'db.v1' }] }, [bundle('db.v1', 'db', '1.0.0', { provides: [gvk('Database')] })]),
      ),
    },
  ],
  subscriptions: [{ name: 'app', package: 'app', channel: 'stable', source: 'community', sourceNamespace: 'olm' }],
};

describe('the resolver uses whichever SAT backend is booted', () => {
  it('resolves the same way on logic-solver and on a tiny DPLL backend, calling only the booted one', async () => {
    const dpllCalls = { count: 0 };
    const answers: unknown[] = [];

    const withLogicSolver = await boot({ plugins: [resolverPlugin, satLogicSolverPlugin] });
    const first = resolverFromKernel(withLogicSolver).resolve(input);
    await withLogicSolver.stop();
    answers.push(first.operators.map((operator) => operator.name));
    expect(dpllCalls.count).toBe(0);
    expect(first.stats.solverCalls).toBeGreaterThan(0);

    const dpllPlugin = definePlugin({
      id: 'plugin-sat-tiny-dpll',
      version: '1.0.0',
      provides: [satBackend],
      init: () => ({ provide: [contribute(satBackend, dpllBackend(dpllCalls))] }),
    });
    const withDpll = await boot({ plugins: [dpllPlugin, resolverPlugin] });
    const second = resolverFromKernel(withDpll).resolve(input);
    await withDpll.stop();
    answers.push(second.operators.map((operator) => operator.name));
    expect(dpllCalls.count).toBe(second.stats.solverCalls);
    expect(dpllCalls.count).toBeGreaterThan(0);

    expect(answers).toEqual([
      ['app.v2', 'db.v1'],
      ['app.v2', 'db.v1'],
    ]);
  });

  it('refuses to boot the resolver without a SAT backend, with a hint', async () => {
    const error = await boot({ plugins: [resolverPlugin] }).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain('consumes extension point "olm.satBackend"');
  });
});
