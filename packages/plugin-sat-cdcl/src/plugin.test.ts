import { boot, satBackend } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { satCdclPlugin } from './plugin.js';

describe('satCdclPlugin', () => {
  it('provides the satBackend extension point with the CDCL solver', async () => {
    const kernel = await boot({ plugins: [satCdclPlugin] });
    const backend = kernel.get(satBackend);
    expect(backend.name).toBe('cdcl');
    const solver = backend.createSolver();
    const [x, y] = [solver.newVariable(), solver.newVariable()];
    solver.addClause([x, y]);
    solver.addClause([-x]);
    const outcome = solver.solve();
    expect(outcome.satisfiable && outcome.value(y)).toBe(true);
    solver.dispose();
    await kernel.stop();
  });
});
