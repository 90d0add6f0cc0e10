import { describe, expect, it } from 'vitest';
import type { CatalogContent, CatalogPackage } from '@olm/core';
import type { CatalogControllerContext } from './controller-context.js';
import { deprecationConditions } from './deprecation-conditions.js';
import type { AnyObject } from './kinds.js';

const now = new Date('2026-01-02T03:04:05Z');
const source: AnyObject = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', metadata: { name: 'acme', namespace: 'olm' } };
const subscription: AnyObject = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'Subscription',
  metadata: { name: 'db', namespace: 'ns' },
  spec: { name: 'db', channel: 'stable', source: 'acme', sourceNamespace: 'olm' },
};

function contextWith(deprecations: CatalogPackage['deprecations']): CatalogControllerContext {
  const pkg = { name: 'db', defaultChannel: 'stable', channels: new Map(), bundles: new Map(), deprecations } as CatalogPackage;
  const content: CatalogContent = { packages: new Map([['db', pkg]]) };
  return { connections: { cachedContent: () => content } } as unknown as CatalogControllerContext;
}

describe('deprecationConditions', () => {
  it('sets package, channel and installed-bundle conditions and the roll-up, in upstream words', () => {
    const context = contextWith([
      { reference: { schema: 'olm.package' }, message: 'use db2' },
      { reference: { schema: 'olm.channel', name: 'stable' }, message: 'use fast' },
      { reference: { schema: 'olm.bundle', name: 'db.v1' }, message: 'loses data' },
      { reference: { schema: 'olm.bundle', name: 'db.v2' }, message: 'not installed' },
    ]);
    const status = deprecationConditions(subscription, { installedCSV: 'db.v1' }, [source], context, now);
    const byType = Object.fromEntries((status.conditions ?? []).map((condition) => [condition.type, condition]));
    expect(byType['PackageDeprecated']).toMatchObject({ status: 'True', reason: 'Deprecated', message: 'olm.package/db: use db2' });
    expect(byType['ChannelDeprecated']).toMatchObject({ message: 'olm.channel/stable: use fast' });
    expect(byType['BundleDeprecated']).toMatchObject({ message: 'olm.bundle/db.v1: loses data' });
    expect(byType['Deprecated']).toMatchObject({
      status: 'True',
      message: 'olm.package/db: use db2; olm.channel/stable: use fast; olm.bundle/db.v1: loses data',
    });
  });

  it('removes the conditions once nothing is deprecated, and ignores the channel when the spec names none', () => {
    const deprecated = deprecationConditions(subscription, {}, [source], contextWith([{ reference: { schema: 'olm.channel', name: 'stable' }, message: 'm' }]), now);
    expect(deprecated.conditions?.map((condition) => condition.type)).toEqual(['ChannelDeprecated', 'Deprecated']);
    const anyChannel = { ...subscription, spec: { ...subscription.spec, channel: '' } };
    expect(deprecationConditions(anyChannel, deprecated, [source], contextWith([{ reference: { schema: 'olm.channel', name: 'stable' }, message: 'm' }]), now).conditions).toEqual([]);
  });
});
