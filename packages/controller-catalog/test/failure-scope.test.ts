import { describe, expect, it } from 'vitest';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { condition, createOperatorNamespace, eventually, get, list, subscription, useExampleCatalogEnvironment } from './helpers.js';

// Issue 24 item 1: one broken Subscription must not block the namespace (unless OLMConfig asks for upstream's behaviour).
const environment = useExampleCatalogEnvironment();

const setScope = (scope: 'Namespace' | 'Subscription') =>
  environment.client.patch({ ...Kinds.olmConfig, name: 'cluster' }, { spec: { features: { resolutionFailureScope: scope } } }, { type: 'merge' }).catch(async () =>
    environment.client.create({ ...Kinds.olmConfig, metadata: { name: 'cluster' }, spec: { features: { resolutionFailureScope: scope } } } as AnyObject),
  );
const failed = (sub: AnyObject | undefined) => condition(sub, 'ResolutionFailed');

describe('resolution failures scoped to the Subscription', () => {
  it('installs a healthy acme-database beside a Subscription to a package that does not exist; only the broken one fails', async () => {
    await createOperatorNamespace(environment.client, 'healthy-beside-broken');
    await environment.client.create(subscription('healthy-beside-broken', 'broken', { name: 'does-not-exist' }));
    await environment.client.create(subscription('healthy-beside-broken', 'acme-database'));
    const database = await eventually(async () => {
      const sub = await get(environment.client, Kinds.subscription, 'healthy-beside-broken', 'acme-database');
      return (sub?.status as { installedCSV?: string } | undefined)?.installedCSV ? sub : false;
    });
    expect(failed(database)).toBeUndefined();
    const broken = await eventually(async () => {
      const sub = await get(environment.client, Kinds.subscription, 'healthy-beside-broken', 'broken');
      return failed(sub)?.status === 'True' && sub;
    });
    expect(failed(broken)).toMatchObject({ reason: 'ConstraintsNotSatisfiable', message: expect.stringContaining('no operators found in package does-not-exist') });
    // Its own message: what it asked for, where OLM looked, and what to do (not the healthy one's business).
    expect(failed(broken)!.message).not.toContain('subscription acme-database');
    expect(failed(broken)!.message).toContain('Subscription broken asks for package does-not-exist in channel stable from catalog olm/acme-examples');
    expect(failed(broken)!.message).toContain('Fix: correct spec.name (catalog olm/acme-examples offers acme-backup, acme-database, acme-monitoring)');
    const plans = await list(environment.client, Kinds.installPlan, 'healthy-beside-broken');
    expect(plans.flatMap((plan) => (plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames)).toEqual(['acme-database.v1.2.0']);
  });

  it('with OLMConfig resolutionFailureScope: Namespace, fails every Subscription as upstream does', async () => {
    await setScope('Namespace');
    try {
      await createOperatorNamespace(environment.client, 'all-or-nothing');
      await environment.client.create(subscription('all-or-nothing', 'broken', { name: 'does-not-exist' }));
      await environment.client.create(subscription('all-or-nothing', 'acme-database'));
      const database = await eventually(async () => {
        const sub = await get(environment.client, Kinds.subscription, 'all-or-nothing', 'acme-database');
        return failed(sub)?.status === 'True' && sub;
      });
      expect(failed(database)!.message).toContain('no operators found in package does-not-exist');
      expect(await list(environment.client, Kinds.installPlan, 'all-or-nothing')).toEqual([]);

      // Back to the default: the namespace resolves again, and the healthy Subscription installs.
      await setScope('Subscription');
      await eventually(async () => {
        const sub = await get(environment.client, Kinds.subscription, 'all-or-nothing', 'acme-database');
        return (sub?.status as { installedCSV?: string } | undefined)?.installedCSV === 'acme-database.v1.2.0' && !failed(sub);
      });
    } finally {
      await setScope('Subscription');
    }
  });
});
