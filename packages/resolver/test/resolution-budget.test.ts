import { ConstraintErrorCodes, hasErrorCode, type CatalogContent, type ConstraintEvaluator, type Property } from '@olm/core';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { builtInConstraintEvaluators, createResolver, ResolverErrorCodes, type ResolveInput, type ResolverOptions } from '../src/index.js';
import { bundle, catalog, gvk, pkg } from './catalog-builder.js';

// Issue 15, item 3: hundreds of distinct CEL rules, each within the per-rule limits, made one
// resolution run for a minute and stall the process. A budget now bounds the whole resolution.

const fifty = `[${Array.from({ length: 50 }, (_, index) => index).join(', ')}]`;
/** Distinct for each `index`, 2,500 loop steps each: well within plugin-cel's per-rule limits. */
const cheapButNotTrivialRule = (index: number) =>
  `properties.exists(p, p.type == "olm.gvk" && p.value.kind == "Kind${index}") || ${fifty}.exists(a, ${fifty}.exists(b, a * b == ${100_000 + index}))`;

const celConstraint = (rule: string, failureMessage: string): Property => ({ type: 'olm.constraint', value: { failureMessage, cel: { rule } } });

/** `app.v1` carries `rules` distinct CEL constraints; 60 other packages (providing Kind0-Kind59) are the candidates they are tested on. */
function hostileCatalog(rules: number): CatalogContent {
  const others = Array.from({ length: 60 }, (_, index) => {
    const name = `filler${index}`;
    return pkg(name, 'stable', { stable: [{ name: `${name}.v1` }] }, [bundle(`${name}.v1`, name, '1.0.0', { provides: [gvk(`Kind${index}`)] })]);
  });
  const constraints = Array.from({ length: rules }, (_, index) => celConstraint(cheapButNotTrivialRule(index), `rule ${index} needs a Kind${index} provider`));
  return catalog(pkg('app', 'stable', { stable: [{ name: 'app.v1' }] }, [bundle('app.v1', 'app', '1.0.0', { properties: constraints })]), ...others);
}

const subscribe = (content: CatalogContent, packageName = 'app'): ResolveInput => ({
  namespace: 'team-a',
  catalogs: [{ name: 'community', namespace: 'olm', content }],
  subscriptions: [{ name: packageName, package: packageName, channel: 'stable', source: 'community', sourceNamespace: 'olm' }],
});

function resolverWith(options: Partial<ResolverOptions> = {}) {
  return createResolver({
    satBackend: createLogicSolverBackend(),
    constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()],
    ...options,
  });
}

function failure(run: () => unknown): Error & { code?: string; details?: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the resolution to fail');
}

describe('the resolution-wide evaluation budget', () => {
  it('stops 300 distinct cheap-but-not-trivial CEL rules, naming the bundle and a rule', () => {
    const error = failure(() => resolverWith().resolve(subscribe(hostileCatalog(300))));
    expect(hasErrorCode(error, ResolverErrorCodes.budgetExhausted)).toBe(true);
    expect(ResolverErrorCodes.budgetExhausted).toBe(ConstraintErrorCodes.budgetExhausted);
    expect(error.message).toMatch(/^resolution stopped: evaluating constraints used up the budget of 50000000 units: bundle app\.v1 \(catalogsource olm\/community\) spent \d+ of them on \d+ constraints/);
    // The rule, abbreviated, with its failureMessage, and how to fix it.
    expect(error.message).toMatch(/with constraint: "properties\.exists\(p, p\.type == \\"olm\.gvk\\" && p\.value\.kind == \\"Kind\d+\\"\).*…/);
    expect(error.message).toMatch(/and message: "rule \d+ needs a Kind\d+ provider"/);
    expect(error.message).toContain('raise the resolution budget');
    expect(error.details).toMatchObject({ limit: 50_000_000, bundle: 'app.v1', catalog: { name: 'community', namespace: 'olm' } });
    expect(error.details?.['failureMessages']).toEqual([expect.stringMatching(/^rule \d+ needs a Kind\d+ provider$/)]);
  });

  it('charges the same for the same input, however much is cached: the failure is deterministic', () => {
    const resolver = resolverWith({ limits: { evaluationUnits: 2_000_000 } });
    const content = hostileCatalog(40);
    const first = failure(() => resolver.resolve(subscribe(content)));
    // The second run finds every result evaluated so far in plugin-cel's cache, and still pays for it.
    const second = failure(() => resolver.resolve(subscribe(content)));
    expect(second.message).toBe(first.message);
    expect(second.details).toEqual(first.details);
  });

  it('leaves the rules alone when the budget allows them', () => {
    const resolution = resolverWith({ limits: { evaluationUnits: Number.MAX_SAFE_INTEGER } }).resolve(subscribe(hostileCatalog(3)));
    expect(resolution.operators.map((operator) => operator.name)).toEqual(['app.v1', 'filler0.v1', 'filler1.v1', 'filler2.v1']);
    // Each rule looped over 59 of the 61 candidates (the other two are app.v1 itself and its Kind's provider).
    expect(resolution.stats.evaluationUnits).toBeGreaterThan(3 * 59 * 2_500);
  });

  it('counts every candidate test, so an evaluator plugin that does not meter itself is still bounded', () => {
    const everything: ConstraintEvaluator = { kind: 'everything', compile: () => ({ test: () => true, describe: () => 'matching everything' }) };
    const wide = Array.from({ length: 50 }, (_, index): Property => ({ type: 'olm.constraint', value: { everything: { index } } }));
    const content = hostileCatalog(0);
    const app = content.packages.get('app')!;
    const bundles = new Map([...app.bundles].map(([name, each]) => [name, { ...each, properties: [...each.properties, ...wide] }]));
    const withWide = { packages: new Map([...content.packages, ['app', { ...app, bundles }]]) };
    const resolver = createResolver({ satBackend: createLogicSolverBackend(), constraintEvaluators: [...builtInConstraintEvaluators, everything], limits: { evaluationUnits: 1_000 } });
    const error = failure(() => resolver.resolve(subscribe(withWide)));
    expect(hasErrorCode(error, ResolverErrorCodes.budgetExhausted)).toBe(true);
    expect(error.message).toContain('bundle app.v1 (catalogsource olm/community) spent');
    expect(error.message).toContain('matching everything');
  });

  it('stops an evaluator that swallows the budget error, against the contract', () => {
    const swallowing: ConstraintEvaluator = {
      kind: 'swallowing',
      compile: () => ({
        test: (subject) => {
          try {
            subject.budget?.spend(1_000);
          } catch {
            // against the contract
          }
          return true;
        },
        describe: () => 'swallowing errors',
      }),
    };
    const content = catalog(
      pkg('app', 'stable', { stable: [{ name: 'app.v1' }] }, [bundle('app.v1', 'app', '1.0.0', { properties: [{ type: 'olm.constraint', value: { swallowing: {} } }] })]),
      ...Array.from({ length: 20 }, (_, index) => pkg(`p${index}`, 'stable', { stable: [{ name: `p${index}.v1` }] }, [bundle(`p${index}.v1`, `p${index}`, '1.0.0')])),
    );
    const resolver = createResolver({ satBackend: createLogicSolverBackend(), constraintEvaluators: [...builtInConstraintEvaluators, swallowing], limits: { evaluationUnits: 5_000 } });
    expect(hasErrorCode(failure(() => resolver.resolve(subscribe(content))), ResolverErrorCodes.budgetExhausted)).toBe(true);
  });

  it('bounds the SAT search by its number of solver calls', () => {
    // The preferred head needs an API nobody provides: a second SAT call settles on the older version.
    const content = catalog(
      pkg('a', 'stable', { stable: [{ name: 'a.v1' }, { name: 'a.v2', replaces: 'a.v1' }] }, [
        bundle('a.v1', 'a', '1.0.0'),
        bundle('a.v2', 'a', '2.0.0', { requires: [gvk('Missing')] }),
      ]),
    );
    const input = subscribe(content, 'a');
    const resolution = resolverWith().resolve(input);
    expect(resolution.operators.map((operator) => operator.name)).toEqual(['a.v1']);
    expect(resolution.stats.solverCalls).toBeGreaterThan(1);
    const error = failure(() => resolverWith({ limits: { solverCalls: 1 } }).resolve(input));
    expect(hasErrorCode(error, ResolverErrorCodes.budgetExhausted)).toBe(true);
    expect(error.message).toContain('the SAT search used up the budget of 1 solver calls');
  });

  it('refuses limits that are not positive integers, and unknown ones', () => {
    for (const limits of [{ evaluationUnits: 0 }, { solverCalls: 1.5 }, { evaluationUnit: 10 }] as const) {
      const error = failure(() => createResolver({ satBackend: createLogicSolverBackend(), limits: limits as object }));
      expect(hasErrorCode(error, ResolverErrorCodes.invalidOptions)).toBe(true);
    }
  });
});
