import { hasErrorCode, type Property } from '@olm/core';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { builtInConstraintEvaluators, createResolver, ResolverErrorCodes, type ResolveInput } from '../src/index.js';
import { bundle, catalog, pkg } from './catalog-builder.js';

// A catalog author's CEL rule is untrusted: one that is too costly must cost that bundle its
// constraint (or, when refused outright, that namespace's resolution) and nothing more.

const numbers = `[${Array.from({ length: 100 }, (_, index) => index).join(', ')}]`;
/** Three nested loops over 100 elements: allowed by the compile-time limits, 1,000,000 iterations when run. */
const costlyRule = `${numbers}.all(a, ${numbers}.all(b, ${numbers}.all(c, a + b + c >= 0)))`;
/** Eight nested loops: refused when compiled (maxComprehensionNesting). */
const bombRule = Array.from({ length: 8 }, (_, index) => `v${index}`).reduceRight(
  (body, name) => `[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].all(${name}, ${body})`,
  'true',
);

const celConstraint = (rule: string): Property => ({ type: 'olm.constraint', value: { failureMessage: 'needs a compatible database', cel: { rule } } });

function content(rule: string) {
  return catalog(
    // app's head carries the rule; app.v1 does not.
    pkg('app', 'stable', { stable: [{ name: 'app.v1' }, { name: 'app.v2', replaces: 'app.v1' }] }, [
      bundle('app.v1', 'app', '1.0.0'),
      bundle('app.v2', 'app', '2.0.0', { properties: [celConstraint(rule)] }),
    ]),
    pkg('db', 'stable', { stable: [{ name: 'db.v1' }] }, [bundle('db.v1', 'db', '1.0.0')]),
    pkg('cache', 'stable', { stable: [{ name: 'cache.v1' }] }, [bundle('cache.v1', 'cache', '1.0.0')]),
  );
}

const subscribe = (namespace: string, packageName: string, catalogContent: ReturnType<typeof content>): ResolveInput => ({
  namespace,
  catalogs: [{ name: 'community', namespace: 'olm', content: catalogContent }],
  subscriptions: [{ name: packageName, package: packageName, channel: 'stable', source: 'community', sourceNamespace: 'olm' }],
});

describe('hostile CEL rules in a catalog', () => {
  it('a rule past the evaluation budget is false for each candidate, so its bundle is passed over', () => {
    const errors: unknown[] = [];
    const resolver = createResolver({
      satBackend: createLogicSolverBackend(),
      // The time limit is raised so that, on a loaded machine, the iteration limit is still the one hit.
      constraintEvaluators: [
        ...builtInConstraintEvaluators,
        createCelConstraintEvaluator({ limits: { maxEvaluationMillis: 60_000 }, onEvaluationError: (error) => errors.push(error) }),
      ],
    });
    const resolution = resolver.resolve(subscribe('team-a', 'app', content(costlyRule)));
    expect(resolution.operators.map((operator) => operator.name)).toEqual(['app.v1']);
    // Every candidate the rule was tested on hit the iteration budget, named in the error.
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((error) => hasErrorCode(error, 'OLM_CEL_LIMIT_EXCEEDED'))).toBe(true);
    expect((errors[0] as Error).message).toContain('maxIterations');
  });

  it('a rule refused when compiled fails that namespace with the limit named; other namespaces resolve', () => {
    const resolver = createResolver({
      satBackend: createLogicSolverBackend(),
      constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()],
    });
    const shared = content(bombRule);
    let caught: unknown;
    try {
      resolver.resolve(subscribe('team-a', 'app', shared));
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, ResolverErrorCodes.invalidInput)).toBe(true);
    expect((caught as Error).message).toMatch(/^convert olm\.constraint to resolver predicate: .*maxComprehensionNesting/);
    // The same resolver and catalog serve another namespace that never reaches the hostile bundle.
    expect(resolver.resolve(subscribe('team-b', 'cache', shared)).operators.map((operator) => operator.name)).toEqual(['cache.v1']);
  });
});
