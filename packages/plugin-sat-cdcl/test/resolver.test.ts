import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boot, constraintEvaluators, hasErrorCode, satBackend, type CatalogContent } from '@olm/core';
import { celPlugin, createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { loadCatalog, registryPlugin } from '@olm/registry';
import { builtInConstraintEvaluators, createResolver, loadScenario, ResolverErrorCodes, resolverPlugin, resolveToOutcome, solveVariables, type SolverVariable } from '@olm/resolver';
import { describe, expect, it } from 'vitest';
import { satCdclPlugin } from '../src/plugin.js';
import { createCdclBackend } from '../src/cdcl-backend.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const casesDirectory = join(repositoryRoot, 'packages/resolver/test/cases');

/** Loads each catalog directory once: several scenarios share the real catalog. */
function cachedCatalogLoader(): (directory: string) => Promise<CatalogContent> {
  const loaded = new Map<string, Promise<CatalogContent>>();
  return (directory) => {
    let content = loaded.get(directory);
    if (!content) {
      content = loadCatalog(directory);
      loaded.set(directory, content);
    }
    return content;
  };
}

describe('the resolver on the CDCL backend', () => {
  it('resolves examples/resolve-monitoring.yaml in a kernel booted with the CDCL backend', async () => {
    const kernel = await boot({ plugins: [resolverPlugin, satCdclPlugin, celPlugin, registryPlugin] });
    try {
      expect(kernel.get(satBackend).name).toBe('cdcl');
      const resolver = createResolver({ satBackend: kernel.get(satBackend), constraintEvaluators: kernel.get(constraintEvaluators) });
      const input = await loadScenario(join(repositoryRoot, 'examples/resolve-monitoring.yaml'), { loadCatalog });
      const { outcome, resolution } = resolveToOutcome(resolver, input);
      expect(outcome.status).toBe('Resolved');
      const operators = resolution!.operators.map((operator) => ({ package: operator.package, version: operator.version }));
      // The example's own comment: acme-monitoring pulls in acme-database 1.2.0 (1.1.1 is deprecated).
      expect(operators).toContainEqual({ package: 'acme-database', version: '1.2.0' });
      expect(operators.map((operator) => operator.package)).toContain('acme-monitoring');

      const reference = createResolver({ satBackend: createLogicSolverBackend(), constraintEvaluators: kernel.get(constraintEvaluators) });
      expect(outcome).toEqual(resolveToOutcome(reference, input).outcome);
    } finally {
      await kernel.stop();
    }
  });

  describe('upstream\'s solver table (packages/resolver/test/cases/solver-*) gives the expected answers', () => {
    const cases = readdirSync(casesDirectory)
      .filter((name) => existsSync(join(casesDirectory, name, 'variables.json')))
      .sort();
    const backend = createCdclBackend();
    const outcomeOf = (variables: SolverVariable[]): unknown => {
      try {
        return { installed: [...solveVariables(variables, backend)].sort() };
      } catch (error) {
        if (hasErrorCode(error, ResolverErrorCodes.unsatisfiable)) return { unsatisfiable: error.message, constraints: error.details['constraints'] };
        if (hasErrorCode(error, ResolverErrorCodes.invalidInput)) return { invalid: error.message };
        throw error;
      }
    };

    it('finds the solver folders', () => {
      expect(cases.length).toBeGreaterThanOrEqual(20);
    });

    for (const name of cases) {
      it(name, () => {
        const { variables } = JSON.parse(readFileSync(join(casesDirectory, name, 'variables.json'), 'utf8')) as { variables: SolverVariable[] };
        expect(outcomeOf(variables)).toEqual(JSON.parse(readFileSync(join(casesDirectory, name, 'expected.json'), 'utf8')) as unknown);
      });
    }
  });

  describe('every scenario of packages/resolver/test/cases gives the expected answer, as with logic-solver', async () => {
    const cases = readdirSync(casesDirectory)
      .filter((name) => existsSync(join(casesDirectory, name, 'scenario.yaml')) && existsSync(join(casesDirectory, name, 'expected.json')))
      .sort();
    const evaluators = [...builtInConstraintEvaluators, createCelConstraintEvaluator()];
    const cdcl = createResolver({ satBackend: createCdclBackend(), constraintEvaluators: evaluators });
    const logicSolver = createResolver({ satBackend: createLogicSolverBackend(), constraintEvaluators: evaluators });
    const load = cachedCatalogLoader();

    it('finds the scenario folders', () => {
      expect(cases.length).toBeGreaterThan(60);
    });

    for (const name of cases) {
      it(name, async () => {
        const input = await loadScenario(join(casesDirectory, name, 'scenario.yaml'), { loadCatalog: load });
        const expected = JSON.parse(readFileSync(join(casesDirectory, name, 'expected.json'), 'utf8')) as unknown;
        const { outcome } = resolveToOutcome(cdcl, input);
        expect(outcome).toEqual(expected);
        expect(outcome).toEqual(resolveToOutcome(logicSolver, input).outcome);
      });
    }
  });

  it('bounds each SAT call by its conflicts: a catalog encoding the pigeonhole problem fails with the budget error', () => {
    // Nine packages must each be installed, and every bundle of them provides one of eight APIs;
    // at most one operator may provide an API, so nine do not fit: a proof needs exponentially many conflicts.
    const holes = 8;
    const packages = new Map(
      Array.from({ length: holes + 1 }, (_, pigeon) => {
        const name = `pigeon${pigeon}`;
        const bundles = Array.from({ length: holes }, (_, hole) => ({
          name: `${name}.v${hole}`,
          package: name,
          image: `example.com/${name}:v${hole}`,
          version: `${hole}.0.0`,
          properties: [
            { type: 'olm.package', value: { packageName: name, version: `${hole}.0.0` } },
            { type: 'olm.gvk', value: { group: 'holes.example.com', version: 'v1', kind: `Hole${hole}` } },
          ],
        }));
        const entries = bundles.map((bundle, hole) => (hole === 0 ? { name: bundle.name } : { name: bundle.name, replaces: bundles[hole - 1]!.name }));
        return [name, { name, defaultChannel: 'stable', channels: new Map([['stable', { name: 'stable', package: name, entries }]]), bundles: new Map(bundles.map((bundle) => [bundle.name, bundle])) }];
      }),
    );
    const input = {
      namespace: 'team-a',
      catalogs: [{ name: 'hostile', namespace: 'olm', content: { packages } }],
      subscriptions: [...packages.keys()].map((name) => ({ name, package: name, channel: 'stable', source: 'hostile', sourceNamespace: 'olm' })),
    };
    const resolver = createResolver({ satBackend: createCdclBackend(), limits: { solverConflicts: 200 } });
    let caught: unknown;
    try {
      resolver.resolve(input);
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, ResolverErrorCodes.budgetExhausted)).toBe(true);
    expect((caught as Error).message).toMatch(/^resolution stopped: a SAT call gave up after 200 conflicts; .* limits\.solverConflicts/);
  });
});
