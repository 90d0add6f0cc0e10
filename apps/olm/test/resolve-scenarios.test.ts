import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

// `olm resolve -o json` must print exactly the resolver's scenario table (packages/resolver/test/cases),
// with exit 0 when resolved, 1 when unsatisfiable and 2 for invalid input. Scenarios that load the real
// catalog from disk are covered in resolve.test.ts and skipped here to keep the run short.
const casesDirectory = fileURLToPath(new URL('../../../packages/resolver/test/cases', import.meta.url));
// (solver-* folders hold the generic solver table, which has no scenario file.)
const cases = readdirSync(casesDirectory)
  .filter((name) => existsSync(join(casesDirectory, name, 'scenario.yaml')))
  .filter((name) => !/\bpath:/.test(readFileSync(join(casesDirectory, name, 'scenario.yaml'), 'utf8')))
  .sort();
const exitCodes: Record<string, number> = { Resolved: 0, Unsatisfiable: 1, Invalid: 2 };

describe('olm resolve reproduces the resolver scenario table', () => {
  it('finds the scenarios', () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  it.each(cases)('%s', async (name) => {
    const expected = JSON.parse(readFileSync(join(casesDirectory, name, 'expected.json'), 'utf8')) as { status: string };
    const run = await runCliCaptured(['resolve', '-f', join(casesDirectory, name, 'scenario.yaml'), '-o', 'json']);
    expect(JSON.parse(run.stdout)).toEqual(expected);
    expect(run.code).toBe(exitCodes[expected.status]);
  });
});
