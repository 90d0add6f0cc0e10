import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { builtInConstraintEvaluators, createResolver, loadScenario, resolveToOutcome, type CatalogLoader, type Resolution } from '../src/index.js';

/**
 * The scenario table: each folder under test/cases holds a `scenario.yaml` (the `olm resolve`
 * input) and the `expected.json` that `olm resolve -o json` must print for it.
 * Set OLM_UPDATE_EXPECTED=1 to write missing expected files (review them before committing).
 */
const casesDirectory = fileURLToPath(new URL('./cases', import.meta.url));
const cases = readdirSync(casesDirectory).filter((name) => existsSync(join(casesDirectory, name, 'scenario.yaml'))).sort();

async function optionalCatalogLoader(): Promise<CatalogLoader | undefined> {
  try {
    const registry = (await import('@olm/registry')) as { loadCatalog?: CatalogLoader };
    const load = registry.loadCatalog;
    if (!load) return undefined;
    // Several scenarios use the real catalog: load each directory once.
    const loaded = new Map<string, ReturnType<CatalogLoader>>();
    return (directory) => {
      let content = loaded.get(directory);
      if (!content) {
        content = load(directory);
        loaded.set(directory, content);
      }
      return content;
    };
  } catch {
    return undefined;
  }
}

/** What a resolution ended with, comparable between runs: its operators, or its error's code and message. */
const outcomeOf = (resolution: Resolution | undefined, error?: unknown) =>
  resolution ? { operators: resolution.operators } : { code: (error as { code?: string }).code, message: (error as Error).message };
const settled = (running: Promise<Resolution>) => running.then(outcomeOf, (error: unknown) => outcomeOf(undefined, error));
function settledNow(run: () => Resolution) {
  try {
    return outcomeOf(run());
  } catch (error) {
    return outcomeOf(undefined, error);
  }
}

describe('resolution scenarios (test/cases)', async () => {
  const loadCatalog = await optionalCatalogLoader();
  const resolver = createResolver({
    satBackend: createLogicSolverBackend(),
    constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()],
  });

  it('has scenario folders', () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  for (const name of cases) {
    const folder = join(casesDirectory, name);
    const scenarioText = readFileSync(join(folder, 'scenario.yaml'), 'utf8');
    const needsLoader = /^\s*(-\s*)?path:|\bpath:/m.test(scenarioText);
    const skip = needsLoader && !loadCatalog;
    it.skipIf(skip)(name, async () => {
      const input = await loadScenario(join(folder, 'scenario.yaml'), loadCatalog ? { loadCatalog } : {});
      const { outcome } = resolveToOutcome(resolver, input);
      const expectedFile = join(folder, 'expected.json');
      if (!existsSync(expectedFile) && process.env['OLM_UPDATE_EXPECTED'] === '1') {
        writeFileSync(expectedFile, `${JSON.stringify(outcome, null, 2)}\n`);
      }
      const expected = JSON.parse(readFileSync(expectedFile, 'utf8')) as unknown;
      expect(outcome).toEqual(expected);
      // Same input, same answer: resolution is deterministic.
      expect(resolveToOutcome(resolver, input).outcome).toEqual(outcome);
      // In slices that pause at every checkpoint too.
      expect(await settled(resolver.resolveInSlices(input, { sliceMs: 0 }))).toEqual(settledNow(() => resolver.resolve(input)));
    });
  }
});
