import { hasErrorCode } from '@olm/core';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { bundle, catalog, gvk, pkg } from '../test/catalog-builder.js';
import { ResolverErrorCodes } from './errors.js';
import { createResolver, type ResolveInput } from './resolver.js';

const content = catalog(
  pkg('database', 'stable', { stable: [{ name: 'database.v1' }], beta: [{ name: 'database.v2-beta' }] }, [
    bundle('database.v1', 'database', '1.0.0', { provides: [gvk('Database')] }),
    bundle('database.v2-beta', 'database', '2.0.0-beta', { provides: [gvk('Database')] }),
  ]),
  pkg('backup', 'stable', { stable: [{ name: 'backup.v1' }] }, [bundle('backup.v1', 'backup', '1.0.0', { requires: [gvk('Database')] })]),
  pkg('lonely', 'stable', { stable: [{ name: 'lonely.v1' }] }, [bundle('lonely.v1', 'lonely', '1.0.0', { requires: [gvk('Nowhere')] })]),
);
const resolver = createResolver({ satBackend: createLogicSolverBackend() });
const subscribe = (name: string, packageName: string, channel?: string) => ({ name, package: packageName, ...(channel ? { channel } : {}), source: 'acme', sourceNamespace: 'olm' });
const input = (subscriptions: ResolveInput['subscriptions'], failureScope?: ResolveInput['failureScope']): ResolveInput => ({
  namespace: 'team',
  catalogs: [{ name: 'acme', namespace: 'olm', content }],
  subscriptions,
  ...(failureScope ? { failureScope } : {}),
});
const unsatisfiable = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(hasErrorCode(error, ResolverErrorCodes.unsatisfiable)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected the resolution to fail');
};

describe('failureScope', () => {
  const healthyAndBroken = [subscribe('database', 'database'), subscribe('broken', 'does-not-exist')];

  it('namespace (upstream, the default): one broken Subscription fails the whole namespace', () => {
    const message = unsatisfiable(() => resolver.resolve(input(healthyAndBroken)));
    expect(message).toContain('no operators found in package does-not-exist');
    expect(unsatisfiable(() => resolver.resolve(input(healthyAndBroken, 'namespace')))).toBe(message);
  });

  it('subscription: the healthy Subscription beside a broken one resolves; only the broken one fails, with its own explanation', () => {
    const resolution = resolver.resolve(input(healthyAndBroken, 'subscription'));
    expect(resolution.operators.map((operator) => operator.name)).toEqual(['database.v1']);
    expect(resolution.failedSubscriptions).toEqual([
      {
        name: 'broken',
        code: ResolverErrorCodes.unsatisfiable,
        message: expect.stringContaining('no operators found in package does-not-exist in the catalog referenced by subscription broken'),
      },
    ]);
    expect(resolution.failedSubscriptions![0]!.message).not.toContain('subscription database');
  });

  it('subscription: Subscriptions that conflict with each other both fail, and the unrelated ones still resolve', () => {
    // Two channels of one package: at most one operator of a package, so neither can be chosen with the other.
    const resolution = resolver.resolve(
      input([subscribe('db-stable', 'database', 'stable'), subscribe('db-beta', 'database', 'beta'), subscribe('backup', 'backup'), subscribe('lonely', 'lonely')], 'subscription'),
    );
    expect(resolution.failedSubscriptions?.map((failed) => failed.name).sort()).toEqual(['db-beta', 'db-stable', 'lonely']);
    const conflict = resolution.failedSubscriptions!.find((failed) => failed.name === 'db-beta')!.message;
    expect(conflict).toContain('subscription db-stable exists');
    expect(conflict).not.toContain('lonely');
    expect(resolution.failedSubscriptions!.find((failed) => failed.name === 'lonely')!.message).toContain('Nowhere');
    // backup's dependency is resolved on its own (its generated Subscription names the default channel).
    expect(resolution.operators.map((operator) => [operator.name, operator.subscription?.name])).toEqual([
      ['backup.v1', 'backup'],
      ['database.v1', 'database-stable-acme-olm'],
    ]);
  });

  it('subscription: with nothing broken the answer is the namespace-scoped one, without failures', () => {
    const subscriptions = [subscribe('backup', 'backup')];
    const scoped = resolver.resolve(input(subscriptions, 'subscription'));
    expect(scoped.failedSubscriptions).toBeUndefined();
    expect(scoped.operators).toEqual(resolver.resolve(input(subscriptions)).operators);
  });

  it('subscription: a conflict among installed operators alone still fails the namespace', () => {
    const conflicting = { ...input([subscribe('lonely-sub', 'backup')], 'subscription'), installed: [{ name: 'orphan.v1', version: '1.0.0', requiredApis: [gvk('Nowhere')] }] };
    expect(unsatisfiable(() => resolver.resolve(conflicting))).toContain('orphan.v1');
  });
});
