import { hasErrorCode, type ConstraintEvaluator } from '@olm/core';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { bundle, catalog, gvk, pkg } from '../test/catalog-builder.js';
import { builtInConstraintEvaluators } from './dependency-predicates.js';
import { ResolverErrorCodes } from './errors.js';
import { createResolver, type ResolveInput } from './resolver.js';

const satBackend = createLogicSolverBackend();

const community = catalog(
  pkg('app', 'stable', { stable: [{ name: 'app.v1' }, { name: 'app.v2', replaces: 'app.v1' }] }, [
    bundle('app.v1', 'app', '1.0.0', { requires: [gvk('Database')] }),
    bundle('app.v2', 'app', '2.0.0', { requires: [gvk('Database')], properties: [{ type: 'olm.constraint', value: { tier: { level: 'gold' } } }] }),
  ]),
  pkg('db', 'stable', { stable: [{ name: 'db.v1' }] }, [
    bundle('db.v1', 'db', '1.0.0', { provides: [gvk('Database')], properties: [{ type: 'tier', value: 'silver' }] }),
  ]),
  pkg('gold-db', 'stable', { stable: [{ name: 'gold-db.v1' }] }, [
    bundle('gold-db.v1', 'gold-db', '1.0.0', { provides: [gvk('Database')], properties: [{ type: 'tier', value: 'gold' }] }),
  ]),
);

const subscribeApp: ResolveInput = {
  namespace: 'operators',
  catalogs: [{ name: 'community', namespace: 'olm', content: community }],
  subscriptions: [{ name: 'app', package: 'app', channel: 'stable', source: 'community', sourceNamespace: 'olm' }],
};

/** A plugin-style constraint kind: `tier: {level}` matches bundles with that `tier` property. */
const tierEvaluator: ConstraintEvaluator = {
  kind: 'tier',
  compile: (value) => {
    const level = (value as { level: string }).level;
    return {
      test: ({ properties }) => properties.some((property) => property.type === 'tier' && property.value === level),
      describe: () => `with tier: ${level}`,
    };
  },
};

describe('createResolver', () => {
  it('uses constraint evaluators contributed beside the built-in kinds', () => {
    const resolver = createResolver({ satBackend, constraintEvaluators: [...builtInConstraintEvaluators, tierEvaluator] });
    const resolution = resolver.resolve(subscribeApp);
    expect(resolution.operators.map((operator) => operator.name)).toEqual(['app.v2', 'gold-db.v1']);
    const goldDb = resolution.operators.find((operator) => operator.name === 'gold-db.v1')!;
    expect(goldDb.subscription).toEqual({ name: 'gold-db-stable-community-olm', isNew: true });
    // db.v1 comes first for the API but breaks the tier constraint, so gold-db.v1 provides the API.
    expect(goldDb.reason).toBe(
      'bundle app.v2 requires an operator providing an API with group: example.com, version: v1, kind: Database: option 2 of 2, the more preferred ones conflict with other choices',
    );
  });

  it('rejects a constraint kind no evaluator handles, as upstream rejects unknown fields', () => {
    const resolver = createResolver({ satBackend });
    let caught: unknown;
    try {
      resolver.resolve(subscribeApp);
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, ResolverErrorCodes.invalidInput)).toBe(true);
    expect((caught as Error).message).toBe('parse olm.constraint: json: unknown field "tier"');
  });

  it('gives the same answer whatever the order of catalogs and subscriptions', () => {
    const resolver = createResolver({ satBackend, constraintEvaluators: [...builtInConstraintEvaluators, tierEvaluator] });
    const other = catalog(pkg('db', 'stable', { stable: [{ name: 'db.v9' }] }, [bundle('db.v9', 'db', '9.0.0', { provides: [gvk('Database')] })]));
    const catalogs = [
      { name: 'community', namespace: 'olm', content: community },
      { name: 'other', namespace: 'olm', priority: 10, content: other },
    ];
    const input = { ...subscribeApp, catalogs };
    const answer = resolver.resolve(input).operators;
    expect(resolver.resolve({ ...input, catalogs: [...catalogs].reverse() }).operators).toEqual(answer);
  });

  it('withholds an update whose only acceptable provider would replace an installed operator without a subscription', () => {
    const resolver = createResolver({ satBackend, constraintEvaluators: [...builtInConstraintEvaluators, tierEvaluator] });
    const resolution = resolver.resolve({
      ...subscribeApp,
      installed: [{ name: 'app.v1', version: '1.0.0', requiredApis: [gvk('Database')] }, { name: 'db.v1', providedApis: [gvk('Database')] }],
      subscriptions: [{ ...subscribeApp.subscriptions![0]!, installedCSV: 'app.v1' }],
    });
    // app.v2 wants a gold database, but db.v1 (no subscription) must stay and provides the API: app.v1 stays.
    expect(resolution.operators.map((operator) => [operator.name, operator.existing])).toEqual([
      ['app.v1', true],
      ['db.v1', true],
    ]);
    expect(resolution.stats.bundleVariables).toBeGreaterThanOrEqual(3);
  });

  it('infers olm.package of an installed CSV without properties from the subscriptions naming it, not from the catalog', () => {
    // The catalog no longer has legacy-db.v1; upstream's csv source infers its package from subscriptions alone.
    const content = catalog(
      pkg('app', 'stable', { stable: [{ name: 'app.v1' }] }, [
        bundle('app.v1', 'app', '1.0.0', { properties: [{ type: 'olm.package.required', value: { packageName: 'db', versionRange: '>=1.0.0' } }] }),
      ]),
      pkg('db', 'stable', { stable: [{ name: 'db.v2' }] }, [bundle('db.v2', 'db', '2.0.0')]),
      pkg('other', 'stable', { stable: [{ name: 'other.v1' }] }, [bundle('other.v1', 'other', '1.0.0')]),
    );
    const resolve = (packages: string[]) =>
      createResolver({ satBackend })
        .resolve({
          namespace: 'operators',
          catalogs: [{ name: 'community', namespace: 'olm', content }],
          installed: [{ name: 'legacy-db.v1', version: '1.0.0' }],
          subscriptions: [
            ...packages.map((name, position) => ({ name: `legacy-${position}`, package: name, channel: 'stable', source: 'community', sourceNamespace: 'olm', installedCSV: 'legacy-db.v1' })),
            { name: 'app', package: 'app', channel: 'stable', source: 'community', sourceNamespace: 'olm' },
          ],
        })
        .operators.map((operator) => `${operator.name}${operator.existing ? ' (kept)' : ''}`);
    // One package (named by one or by two subscriptions): legacy-db.v1 is db 1.0.0 and satisfies app.
    expect(resolve(['db'])).toEqual(['app.v1', 'legacy-db.v1 (kept)']);
    expect(resolve(['db', 'db'])).toEqual(['app.v1', 'legacy-db.v1 (kept)']);
    // Subscriptions disagreeing on the package: nothing is inferred, so the catalog's db.v2 is installed.
    expect(resolve(['db', 'other'])).toEqual(['app.v1', 'db.v2', 'legacy-db.v1 (kept)']);
  });

  it('applies system constraints to catalog bundles (upstream WithSystemConstraints)', () => {
    // Only gold-db may be installed on this cluster: the API's preferred provider db.v1 is steered away from.
    const resolver = createResolver({
      satBackend,
      constraintEvaluators: [...builtInConstraintEvaluators, tierEvaluator],
      systemConstraints: (bundle) =>
        bundle.package === 'db' ? [{ kind: 'prohibited', message: `bundle ${bundle.name} is not on the allow list` }] : [],
    });
    const input: ResolveInput = { ...subscribeApp, subscriptions: [{ name: 'db', package: 'db', channel: 'stable', source: 'community', sourceNamespace: 'olm' }] };
    let caught: unknown;
    try {
      resolver.resolve(input);
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, ResolverErrorCodes.unsatisfiable)).toBe(true);
    expect((caught as Error).message).toBe(
      'constraints not satisfiable: bundle db.v1 is not on the allow list, subscription db exists, subscription db requires community/olm/stable/db.v1',
    );
    const steered = createResolver({
      satBackend,
      systemConstraints: (bundle) => (bundle.name === 'db.v1' ? [{ kind: 'prohibited', message: 'not allowed' }] : []),
    }).resolve({
      ...subscribeApp,
      catalogs: [
        {
          name: 'community',
          namespace: 'olm',
          content: catalog(
            pkg('app', 'stable', { stable: [{ name: 'app.v1' }] }, [bundle('app.v1', 'app', '1.0.0', { requires: [gvk('Database')] })]),
            pkg('db', 'stable', { stable: [{ name: 'db.v1' }] }, [bundle('db.v1', 'db', '1.0.0', { provides: [gvk('Database')] })]),
            pkg('gold-db', 'stable', { stable: [{ name: 'gold-db.v1' }] }, [bundle('gold-db.v1', 'gold-db', '1.0.0', { provides: [gvk('Database')] })]),
          ),
        },
      ],
    });
    expect(steered.operators.map((operator) => operator.name)).toEqual(['app.v1', 'gold-db.v1']);

    // "Existing packages are ignored": installed operators get no system constraints, so a prohibited
    // package that is already installed stays.
    const kept = createResolver({
      satBackend,
      systemConstraints: (bundle) => (bundle.package === 'db' ? [{ kind: 'prohibited', message: `package ${bundle.package} is not white listed` }] : []),
    }).resolve({
      ...subscribeApp,
      installed: [{ name: 'db.v1', properties: [{ type: 'olm.package', value: { packageName: 'db', version: '1.0.0' } }, { type: 'olm.gvk', value: gvk('Database') }] }],
      subscriptions: [{ name: 'db', package: 'db', channel: 'stable', source: 'community', sourceNamespace: 'olm', installedCSV: 'db.v1' }],
    });
    expect(kept.operators.map((operator) => [operator.name, operator.existing])).toEqual([['db.v1', true]]);
  });
});

describe('a bundle at the head of several channels', () => {
  // As stackable's operators: the default channel `stable` sorts after a version channel.
  const multiChannel = catalog(
    pkg('secrets', 'stable', { '26.7': [{ name: 'secrets.v26.7.0' }], stable: [{ name: 'secrets.v26.7.0' }] }, [
      bundle('secrets.v26.7.0', 'secrets', '26.7.0', { provides: [gvk('SecretClass')] }),
    ]),
    pkg('listener', 'stable', { '26.7': [{ name: 'listener.v26.7.0' }], stable: [{ name: 'listener.v26.7.0' }] }, [
      bundle('listener.v26.7.0', 'listener', '26.7.0', { requires: [gvk('SecretClass')] }),
    ]),
  );
  const resolve = (subscription: { name: string; package: string }) =>
    createResolver({ satBackend, constraintEvaluators: builtInConstraintEvaluators }).resolve({
      namespace: 'operators',
      catalogs: [{ name: 'stackable', namespace: 'olm', content: multiChannel }],
      subscriptions: [{ ...subscription, source: 'stackable', sourceNamespace: 'olm' }],
    });

  it('is reported in the default channel when the subscription names none, not the alphabetically first', () => {
    const resolution = resolve({ name: 'secrets', package: 'secrets' });
    expect(resolution.operators.map((operator) => [operator.name, operator.channel])).toEqual([['secrets.v26.7.0', 'stable']]);
  });

  it('brings a dependency along in its default channel, and the generated subscription says so', () => {
    const resolution = resolve({ name: 'listener', package: 'listener' });
    const dependency = resolution.operators.find((operator) => operator.package === 'secrets')!;
    expect(dependency.channel).toBe('stable');
    expect(dependency.subscription).toEqual({ name: 'secrets-stable-stackable-olm', isNew: true });
    expect(resolution.operators.find((operator) => operator.package === 'listener')!.channel).toBe('stable');
  });
});
