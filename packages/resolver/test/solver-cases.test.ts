import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasErrorCode } from '@olm/core';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { ResolverErrorCodes, solveVariables, type SolverVariable } from '../src/index.js';

/**
 * Upstream's generic solver table (solver/solve_test.go) as folders: test/cases/solver-<name>/
 * holds `variables.json` (`about`: the upstream case; `variables`: ids and constraints, in input order) and `expected.json`:
 * `{installed}` (ids, sorted as upstream compares them), `{unsatisfiable, constraints}` (the
 * message and a minimal conflicting set) or `{invalid}` (refused before solving).
 * Set OLM_UPDATE_EXPECTED=1 to write missing expected files (review them before committing).
 */
const casesDirectory = fileURLToPath(new URL('./cases', import.meta.url));
const cases = readdirSync(casesDirectory).filter((name) => existsSync(join(casesDirectory, name, 'variables.json'))).sort();
const backend = createLogicSolverBackend();

function outcomeOf(variables: SolverVariable[]): unknown {
  try {
    return { installed: [...solveVariables(variables, backend)].sort() };
  } catch (error) {
    if (hasErrorCode(error, ResolverErrorCodes.unsatisfiable)) return { unsatisfiable: error.message, constraints: error.details['constraints'] };
    if (hasErrorCode(error, ResolverErrorCodes.invalidInput)) return { invalid: error.message };
    throw error;
  }
}

describe('solver table (test/cases/solver-*)', () => {
  it('has the upstream TestSolve cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  for (const name of cases) {
    it(name, () => {
      const folder = join(casesDirectory, name);
      const { variables } = JSON.parse(readFileSync(join(folder, 'variables.json'), 'utf8')) as { variables: SolverVariable[] };
      const outcome = outcomeOf(variables);
      const expectedFile = join(folder, 'expected.json');
      if (process.env['OLM_UPDATE_EXPECTED'] === '1' && !existsSync(expectedFile)) writeFileSync(expectedFile, `${JSON.stringify(outcome, null, 2)}\n`);
      expect(outcome).toEqual(JSON.parse(readFileSync(expectedFile, 'utf8')) as unknown);
      // The same input gives the same answer.
      expect(outcomeOf(variables)).toEqual(outcome);
    });
  }
});
