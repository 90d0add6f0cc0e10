import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { bundle, catalog, pkg } from '../test/catalog-builder.js';
import { createResolver, type ResolveInput } from './resolver.js';

// acme-database's graph: 1.0.0 <- 1.1.0 <- 1.1.1 <- 1.2.0 <- 1.3.0 (each replaces the one before).
const versions = ['1.0.0', '1.1.0', '1.1.1', '1.2.0', '1.3.0'];
const content = catalog(
  pkg(
    'database',
    'stable',
    { stable: versions.map((version, index) => ({ name: `database.v${version}`, ...(index > 0 ? { replaces: `database.v${versions[index - 1]}` } : {}) })) },
    versions.map((version) => bundle(`database.v${version}`, 'database', version)),
  ),
);
const resolver = createResolver({ satBackend: createLogicSolverBackend() });
const resolve = (versionRange: string | undefined, installed?: string): ReturnType<typeof resolver.resolve> => {
  const input: ResolveInput = {
    namespace: 'team',
    catalogs: [{ name: 'acme', namespace: 'olm', content }],
    ...(installed ? { installed: [{ name: `database.v${installed}`, version: installed, properties: [{ type: 'olm.package', value: { packageName: 'database', version: installed } }] }] } : {}),
    subscriptions: [
      { name: 'database', package: 'database', channel: 'stable', source: 'acme', sourceNamespace: 'olm', ...(installed ? { installedCSV: `database.v${installed}` } : {}), ...(versionRange ? { versionRange } : {}) },
    ],
    failureScope: 'subscription',
  };
  return resolver.resolve(input);
};
const chosen = (resolution: ReturnType<typeof resolve>) => resolution.operators.map((operator) => operator.name);

describe('a Subscription version pin', () => {
  it('installs the newest version inside the range, and reports the newer one it keeps out', () => {
    const resolution = resolve('>=1.1.0 <1.3.0');
    expect(chosen(resolution)).toEqual(['database.v1.2.0']);
    expect(resolution.withheldUpdates).toEqual([{ subscription: 'database', versionRange: '>=1.1.0 <1.3.0', bundle: { name: 'database.v1.3.0', version: '1.3.0' } }]);
    expect(chosen(resolve(undefined))).toEqual(['database.v1.3.0']);
  });

  it('upgrades along the graph only within the range: 1.1.0 moves to 1.1.1 under 1.1.x, then stays', () => {
    expect(chosen(resolve('1.1.x', '1.1.0'))).toEqual(['database.v1.1.1']);
    const held = resolve('1.1.x', '1.1.1');
    expect(chosen(held)).toEqual(['database.v1.1.1']);
    expect(held.operators[0]!.existing).toBe(true);
    expect(held.withheldUpdates?.[0]?.bundle.name).toBe('database.v1.2.0');
  });

  it('holds an exact version, and reports nothing withheld when the pin allows the newest', () => {
    expect(chosen(resolve('1.1.0'))).toEqual(['database.v1.1.0']);
    expect(resolve('>=1.0.0').withheldUpdates).toBeUndefined();
  });

  it('fails only that Subscription, with how to write a range, when the pin is not a range', () => {
    const resolution = resolve('newest please');
    expect(resolution.failedSubscriptions?.[0]?.message).toContain('version pin "newest please" of subscription database is not a version range');
    expect(resolution.failedSubscriptions?.[0]?.message).toContain('>=1.1.0 <1.3.0');
  });

  it('fails when no version of the channel is inside the pin and nothing is installed', () => {
    expect(resolve('>=2.0.0').failedSubscriptions?.[0]?.message).toContain('subscription database');
  });
});
