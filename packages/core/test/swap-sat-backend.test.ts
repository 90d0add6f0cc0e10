import { describe, expect, it } from 'vitest';
import { boot, contribute, definePlugin, satBackend, type SatBackend, type SatLiteral, type SatSolver } from '../src/index.js';

/**
 * A consumer that only knows the satBackend contract: it asks for one model of
 * "at most one of x, y" and reports which variable came out true. Different backends
 * may pick differently; the consumer must follow whichever backend is booted.
 */
const pickerPlugin = (result: { picked?: string; backend?: string }) =>
  definePlugin({
    id: 'picker',
    version: '1.0.0',
    deps: { backend: satBackend },
    init({ backend }) {
      return {
        start() {
        const solver = backend.createSolver();
        const x = solver.newVariable();
        const y = solver.newVariable();
        solver.addClause([x, y]);
        solver.addAtMostOne([x, y]);
        const outcome = solver.solve();
        if (!outcome.satisfiable) throw new Error('unexpectedly unsatisfiable');
        result.picked = outcome.value(x) ? 'x' : 'y';
        result.backend = backend.name;
        solver.dispose();
        },
      };
    },
  });

/** Brute force over all assignments, trying them in the given bit order. */
function bruteForceBackend(name: string, preferLastVariable: boolean): SatBackend {
  return {
    name,
    createSolver(): SatSolver {
      let variables = 0;
      const clauses: SatLiteral[][] = [];
      return {
        newVariable: () => ++variables,
        addClause: (literals) => void clauses.push([...literals]),
        addAtMostOne: (literals) => {
          for (let i = 0; i < literals.length; i++)
            for (let j = i + 1; j < literals.length; j++) clauses.push([-literals[i]!, -literals[j]!]);
        },
        solve(assumptions = []) {
          const all = [...clauses, ...assumptions.map((literal) => [literal])];
          for (let mask = 0; mask < 1 << variables; mask++) {
            const bits = preferLastVariable ? mask : reverseBits(mask, variables);
            const value = (variable: number) => ((bits >> (variable - 1)) & 1) === 1;
            const holds = (literal: number) => (literal > 0 ? value(literal) : !value(-literal));
            if (all.every((clause) => clause.some(holds))) return { satisfiable: true, value };
          }
          return { satisfiable: false };
        },
        dispose: () => {},
      };
    },
  };
}

function reverseBits(mask: number, width: number): number {
  let out = 0;
  for (let i = 0; i < width; i++) if (mask & (1 << i)) out |= 1 << (width - 1 - i);
  return out;
}

const backendPlugin = (backend: SatBackend) =>
  definePlugin({ id: `plugin-sat-${backend.name}`, version: '1.0.0', provides: [satBackend], init: () => ({ provide: [contribute(satBackend, backend)] }) });

describe('swapping the SAT backend', () => {
  it('changes behaviour by changing which plugin boots, with no change to the consumer', async () => {
    const outcomes: Array<{ picked?: string; backend?: string }> = [];
    for (const backend of [bruteForceBackend('low-first', true), bruteForceBackend('high-first', false)]) {
      const result: { picked?: string; backend?: string } = {};
      const kernel = await boot({ plugins: [pickerPlugin(result), backendPlugin(backend)] });
      await kernel.stop();
      outcomes.push(result);
    }
    expect(outcomes).toEqual([
      { picked: 'x', backend: 'low-first' },
      { picked: 'y', backend: 'high-first' },
    ]);
  });

  it('refuses to boot with two SAT backends at once', async () => {
    const error = await boot({
      plugins: [pickerPlugin({}), backendPlugin(bruteForceBackend('a', true)), backendPlugin(bruteForceBackend('b', true))],
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain(
      'extension point "olm.satBackend" is provided by both "plugin-sat-a" and "plugin-sat-b"',
    );
  });

  it('explains how to fix a missing SAT backend', async () => {
    const error = await boot({ plugins: [pickerPlugin({})] }).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain('Hint: boot a SAT backend plugin such as @olm/plugin-sat-logic-solver');
  });
});
