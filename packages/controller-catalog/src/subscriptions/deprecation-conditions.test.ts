import { describe, expect, it } from 'vitest';
import type { CatalogContent, CatalogPackage } from '@olm/core';
import type { CatalogSourceConnections } from '../catalog-sources/catalog-source-connections.js';
import { deprecationConditions } from './deprecation-conditions.js';
import type { AnyObject, SubscriptionObject } from '../kinds.js';

const now = new Date('2026-01-02T03:04:05Z');
const source: AnyObject = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', metadata: { name: 'acme', namespace: 'olm' } };
const subscription: SubscriptionObject = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'Subscription',
  metadata: { name: 'db', namespace: 'ns' },
  spec: { name: 'db', channel: 'stable', source: 'acme', sourceNamespace: 'olm' },
};

/** What the controller reads: the content loaded for the Subscription's catalog (channels stable: db.v1, db.v2; fast: db.v3). */
function connectionsWith(deprecations: CatalogPackage['deprecations']): { connections: CatalogSourceConnections } {
  const channel = (name: string, entries: string[]) => [name, { name, package: 'db', entries: entries.map((entry) => ({ name: entry })) }] as const;
  const pkg = {
    name: 'db',
    defaultChannel: 'stable',
    channels: new Map([channel('stable', ['db.v1', 'db.v2']), channel('fast', ['db.v3'])]),
    bundles: new Map(),
    deprecations,
  } as unknown as CatalogPackage;
  const content: CatalogContent = { packages: new Map([['db', pkg]]) };
  const connections = { cachedContent: (key: { namespace: string; name: string }) => (key.namespace === 'olm' && key.name === 'acme' ? content : undefined) };
  return { connections: connections as unknown as CatalogSourceConnections };
}

const byType = (status: { conditions?: readonly { type: string }[] }) => Object.fromEntries((status.conditions ?? []).map((condition) => [condition.type, condition]));

describe('deprecationConditions', () => {
  it("sets package, channel and installed-bundle conditions and the roll-up, in upstream's words and without a reason", () => {
    const context = connectionsWith([
      { reference: { schema: 'olm.package' }, message: 'use db2' },
      { reference: { schema: 'olm.channel', name: 'stable' }, message: 'use fast' },
      { reference: { schema: 'olm.bundle', name: 'db.v1' }, message: 'loses data' },
      { reference: { schema: 'olm.bundle', name: 'db.v2' }, message: 'not installed' },
    ]);
    const conditions = byType(deprecationConditions(subscription, { installedCSV: 'db.v1' }, [source], context, now));
    expect(conditions['PackageDeprecated']).toEqual({ type: 'PackageDeprecated', status: 'True', message: 'olm.package/db: use db2', lastTransitionTime: '2026-01-02T03:04:05Z' });
    expect(conditions['ChannelDeprecated']).toMatchObject({ status: 'True', message: 'olm.channel/stable: use fast' });
    expect(conditions['BundleDeprecated']).toMatchObject({ status: 'True', message: 'olm.bundle/db.v1: loses data' });
    expect(conditions['Deprecated']).toEqual({
      type: 'Deprecated',
      status: 'True',
      message: 'olm.package/db: use db2; olm.channel/stable: use fast; olm.bundle/db.v1: loses data',
      lastTransitionTime: '2026-01-02T03:04:05Z',
    });
  });

  it('removes the conditions once nothing is deprecated, and ignores the channel when the spec names none', () => {
    const channelDeprecated = connectionsWith([{ reference: { schema: 'olm.channel', name: 'stable' }, message: 'm' }]);
    const deprecated = deprecationConditions(subscription, { installedCSV: 'db.v2' }, [source], channelDeprecated, now);
    expect(deprecated.conditions?.map((condition) => condition.type)).toEqual(['ChannelDeprecated', 'Deprecated']);
    const anyChannel = { ...subscription, spec: { ...subscription.spec, channel: '' } };
    expect(deprecationConditions(anyChannel, deprecated, [source], channelDeprecated, now).conditions).toEqual([]);
    expect(deprecationConditions(subscription, deprecated, [source], connectionsWith([]), now).conditions).toEqual([]);
  });

  it('looks only at the installed CSV: nothing before an install, nothing changed while its entry is not in the channel', () => {
    const context = connectionsWith([{ reference: { schema: 'olm.package' }, message: 'use db2' }]);
    expect(deprecationConditions(subscription, {}, [source], context, now)).toEqual({});
    const kept = { installedCSV: 'db.v3', conditions: [{ type: 'Deprecated', status: 'True' as const, message: 'earlier' }] };
    // db.v3 is in fast, not in the subscribed stable channel
    expect(deprecationConditions(subscription, kept, [source], context, now)).toBe(kept);
    // a catalog the namespace cannot see, or content not loaded yet
    expect(deprecationConditions(subscription, { installedCSV: 'db.v1' }, [], context, now)).toEqual({ installedCSV: 'db.v1' });
  });
});
