import { hasErrorCode } from '@olm/core';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { describe, expect, it } from 'vitest';
import { bundle, catalog, gvk, pkg } from '../test/catalog-builder.js';
import { createResolver, type ResolveInput } from './resolver.js';

const content = catalog(
  pkg('acme-database', 'stable', { stable: [{ name: 'acme-database.v1.0.0' }], fast: [{ name: 'acme-database.v1.0.0' }] }, [
    bundle('acme-database.v1.0.0', 'acme-database', '1.0.0', { provides: [gvk('Database')] }),
  ]),
  pkg('acme-backup', 'stable', { stable: [{ name: 'acme-backup.v1.0.0' }] }, [bundle('acme-backup.v1.0.0', 'acme-backup', '1.0.0', { requires: [gvk('Vault')] })]),
);
const resolver = createResolver({ satBackend: createLogicSolverBackend() });
type Sub = NonNullable<ResolveInput['subscriptions']>[number];
const failureOf = (subscription: Partial<Sub>): string => {
  const resolution = resolver.resolve({
    namespace: 'team',
    catalogs: [
      { name: 'acme', namespace: 'olm', content },
      { name: 'community', namespace: 'olm', content: catalog() },
    ],
    subscriptions: [{ name: 'sub', package: 'acme-database', source: 'acme', sourceNamespace: 'olm', ...subscription }],
    failureScope: 'subscription',
  });
  expect(resolution.failedSubscriptions).toHaveLength(1);
  return resolution.failedSubscriptions![0]!.message;
};

describe('ResolutionFailed messages name the Subscription, the package, the catalogs searched and a fix', () => {
  it('a mistyped package: the minimal conflict first, then close matches', () => {
    const message = failureOf({ package: 'acme-databse' });
    expect(message).toMatch(/^constraints not satisfiable: no operators found in package acme-databse in the catalog referenced by subscription sub, subscription sub exists\. /);
    expect(message).toContain('Subscription sub asks for package acme-databse in its default channel from catalog olm/acme');
    expect(message).toContain('catalogs searched: olm/acme (dependencies also from olm/community)');
    expect(message).toContain('Fix: correct spec.name; did you mean acme-database? (catalog olm/acme offers acme-backup, acme-database)');
  });

  it('a catalog that is not there, a channel, a starting CSV and a version pin that match nothing', () => {
    expect(failureOf({ source: 'acm' })).toContain('Fix: CatalogSource olm/acm is not visible to namespace team or has no content: create it, or correct spec.source and spec.sourceNamespace; did you mean acme?');
    expect(failureOf({ channel: 'fsat' })).toContain('Fix: set spec.channel to one of fast, stable; did you mean fast? (the default is stable)');
    expect(failureOf({ startingCSV: 'acme-database.v0.9.0' })).toContain('Fix: remove spec.startingCSV to install the channel head, or set it to a bundle of channel stable; did you mean acme-database.v1.0.0?');
    expect(failureOf({ versionRange: '>=2.0.0' })).toContain('Fix: widen the version pin ">=2.0.0": no version of the channel is inside it (versions: 1.0.0)');
  });

  it('a missing dependency: how to leave the conflict', () => {
    const message = failureOf({ package: 'acme-backup' });
    expect(message).toContain('bundle acme-backup.v1.0.0 requires an operator providing an API with group: example.com, version: v1, kind: Vault');
    expect(message).toContain('Fix: the constraints above cannot hold together');
  });

  it('upstream scope: the error carries a message per Subscription, and tells the bystanders why they wait', () => {
    let caught: unknown;
    try {
      resolver.resolve({
        namespace: 'team',
        catalogs: [{ name: 'acme', namespace: 'olm', content }],
        subscriptions: [
          { name: 'broken', package: 'nope', source: 'acme', sourceNamespace: 'olm' },
          { name: 'healthy', package: 'acme-database', source: 'acme', sourceNamespace: 'olm' },
        ],
      });
    } catch (error) {
      caught = error;
    }
    expect(hasErrorCode(caught, 'OLM_RESOLVER_UNSATISFIABLE')).toBe(true);
    const messages = (caught as { details: { subscriptionMessages: Record<string, string> } }).details.subscriptionMessages;
    expect(messages['broken']).toContain('Fix: correct spec.name');
    expect(messages['healthy']).toContain('Subscription healthy is not part of this conflict; it waits because the namespace is resolved as a whole');
  });
});
