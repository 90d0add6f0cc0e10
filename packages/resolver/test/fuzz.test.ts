import { hasErrorCode, type CatalogContent } from '@olm/core';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { builtInConstraintEvaluators, createResolver, parseScenario, resolveToOutcome, scenarioToInput, type ResolveInput } from '../src/index.js';
import { bundle, catalog, gvk, pkg } from './catalog-builder.js';

/**
 * Generated scenario files and constraints (fast-check). Parsing a scenario and resolving it, or
 * resolving a bundle whose `olm.constraint` is any value (compound, CEL, junk), ends in a resolution,
 * an unsatisfiable or invalid outcome, or a coded error: never a TypeError, RangeError or hang.
 */
const resolver = createResolver({
  satBackend: createLogicSolverBackend(),
  constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()],
});

function expectClearError(error: unknown): void {
  expect(hasErrorCode(error), `not a coded error: ${(error as Error)?.stack ?? String(error)}`).toBe(true);
  expect((error as Error).message.length).toBeGreaterThan(0);
}

const anyJson = fc.jsonValue({ maxDepth: 3 });
const orAnything = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary }, { weight: 1, arbitrary: anyJson });
const celRule = fc.oneof(
  fc.constantFrom(
    'true',
    'false',
    'properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.0.0") >= 0)',
    'properties.all(p, p.type.matches("^(a+)+$"))',
    '[1,2,3].map(x, [x, x]).size() > 2',
    '1 +',
    '"a" * 3',
    'properties[0].value.missing',
  ),
  fc.string({ maxLength: 40 }),
);
const constraint: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.record({ failureMessage: fc.string({ maxLength: 20 }), gvk: orAnything(fc.record({ group: fc.constant('db.io'), version: fc.constant('v1'), kind: fc.constantFrom('Db', 'Nope') })) }, { requiredKeys: ['gvk'] }),
    fc.record({ package: orAnything(fc.record({ packageName: fc.constantFrom('db', 'nope'), versionRange: fc.constantFrom('>=1.0.0', '<1.0.0', 'not a range', '') }, { requiredKeys: [] })) }),
    fc.record({ cel: orAnything(fc.record({ rule: orAnything(celRule) }, { requiredKeys: [] })) }),
    fc.record({ all: orAnything(fc.record({ constraints: fc.array(tie('node'), { maxLength: 3 }) }, { requiredKeys: [] })) }),
    fc.record({ any: orAnything(fc.record({ constraints: fc.array(tie('node'), { maxLength: 3 }) }, { requiredKeys: [] })) }),
    fc.record({ not: orAnything(fc.record({ constraints: fc.array(tie('node'), { maxLength: 2 }) }, { requiredKeys: [] })) }),
    anyJson,
  ),
})).node;

function withConstraint(value: unknown): CatalogContent {
  return catalog(
    pkg('app', 'stable', { stable: [{ name: 'app.v1' }] }, [bundle('app.v1', 'app', '1.0.0', { properties: [{ type: 'olm.constraint', value }] })]),
    pkg('db', 'stable', { stable: [{ name: 'db.v1' }] }, [bundle('db.v1', 'db', '1.0.0', { provides: [gvk('Db', 'db.io')] })]),
  );
}

const name = fc.constantFrom('a', 'b', 'a.v1', 'a.v2', '');
const blob = fc.oneof(
  fc.record({ schema: fc.constant('olm.package'), name: orAnything(name), defaultChannel: orAnything(fc.constant('stable')) }, { requiredKeys: ['schema'] }),
  fc.record({ schema: fc.constant('olm.channel'), package: orAnything(name), name: orAnything(fc.constant('stable')), entries: orAnything(fc.array(fc.record({ name: orAnything(name), replaces: orAnything(name) }, { requiredKeys: [] }), { maxLength: 3 })) }, { requiredKeys: ['schema'] }),
  fc.record(
    { schema: fc.constant('olm.bundle'), name: orAnything(name), package: orAnything(name), version: orAnything(fc.constantFrom('1.0.0', '2.0.0', 'x')), provides: orAnything(fc.array(fc.record({ group: fc.constant('a.io'), version: fc.constant('v1'), kind: fc.constant('A') }), { maxLength: 2 })), properties: orAnything(fc.array(fc.record({ type: fc.constantFrom('olm.constraint', 'olm.package.required', 'olm.gvk'), value: constraint }), { maxLength: 2 })) },
    { requiredKeys: ['schema'] },
  ),
  anyJson,
);
const scenario = fc.record(
  {
    namespace: orAnything(fc.constant('ns')),
    failForward: orAnything(fc.boolean()),
    catalogs: orAnything(fc.array(fc.record({ name: orAnything(fc.constantFrom('c', 'd')), namespace: orAnything(fc.constant('olm')), priority: orAnything(fc.integer({ min: -5, max: 5 })), content: orAnything(fc.array(blob, { maxLength: 6 })) }, { requiredKeys: [] }), { maxLength: 2 })),
    installed: orAnything(fc.array(fc.record({ name: orAnything(name), package: orAnything(name), version: orAnything(fc.constant('1.0.0')), catalog: anyJson }, { requiredKeys: [] }), { maxLength: 2 })),
    subscriptions: orAnything(fc.array(fc.record({ name: orAnything(name), package: orAnything(name), channel: orAnything(fc.constant('stable')), source: orAnything(fc.constantFrom('c', 'd')), sourceNamespace: orAnything(fc.constant('olm')), startingCSV: orAnything(name) }, { requiredKeys: [] }), { maxLength: 2 })),
  },
  { requiredKeys: [] },
);

describe('generated input to the resolver', () => {
  it('constraints of any shape resolve, are unsatisfiable, or fail with a clear error', () => {
    const outcomes = { Resolved: 0, Unsatisfiable: 0, Invalid: 0, error: 0 };
    fc.assert(
      fc.property(constraint, (value) => {
        const input: ResolveInput = {
          namespace: 'ns',
          catalogs: [{ name: 'community', namespace: 'olm', content: withConstraint(value) }],
          subscriptions: [{ name: 'app', package: 'app', channel: 'stable', source: 'community', sourceNamespace: 'olm' }],
        };
        try {
          const { outcome } = resolveToOutcome(resolver, input);
          outcomes[outcome.status] += 1;
          if (outcome.status !== 'Resolved') expect(outcome.message.length).toBeGreaterThan(0);
        } catch (error) {
          outcomes.error += 1;
          expectClearError(error);
        }
      }),
      { numRuns: 400, seed: 20_261_127 },
    );
    // the generator reaches resolutions, unsatisfiable constraints and refused ones alike
    expect(outcomes.Resolved).toBeGreaterThan(10);
    expect(outcomes.Unsatisfiable + outcomes.Invalid + outcomes.error).toBeGreaterThan(10);
  }, 120_000);

  it('scenario files (YAML of any shape, and arbitrary text) resolve or fail with a clear error', async () => {
    const texts = fc.oneof({ weight: 4, arbitrary: scenario.map((value) => stringify(value)) }, { weight: 1, arbitrary: fc.string({ maxLength: 300 }) });
    await fc.assert(
      fc.asyncProperty(texts, async (text) => {
        try {
          const input = await scenarioToInput(parseScenario(text, 'scenario.yaml'));
          resolveToOutcome(resolver, input);
        } catch (error) {
          expectClearError(error);
        }
      }),
      { numRuns: 300, seed: 20_261_127 },
    );
  }, 120_000);
});
