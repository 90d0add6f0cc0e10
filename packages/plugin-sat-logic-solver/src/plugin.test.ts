import { boot, satBackend } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { satLogicSolverPlugin } from './plugin.js';

describe('satLogicSolverPlugin', () => {
  it('provides the satBackend extension point', async () => {
    const kernel = await boot({ plugins: [satLogicSolverPlugin] });
    const backend = kernel.get(satBackend);
    expect(backend.name).toBe('logic-solver');
    const solver = backend.createSolver();
    const x = solver.newVariable();
    solver.addClause([x]);
    const outcome = solver.solve();
    expect(outcome.satisfiable && outcome.value(x)).toBe(true);
    solver.dispose();
    await kernel.stop();
  });
});
