import { describe, expect, it } from 'vitest';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { approveInstallPlan, createOperatorNamespace, eventually, get, list, subscription, useExampleCatalogEnvironment } from './helpers.js';

// Issue 24 item 2: one Manual Subscription must not force Manual approval on every plan of its namespace.
const environment = useExampleCatalogEnvironment();

const phaseOf = (plan: AnyObject | undefined) => (plan?.status as { phase?: string } | undefined)?.phase;
const csvNamesOf = (plan: AnyObject) => (plan.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames;
const planFor = async (namespace: string, csv: string) => (await list(environment.client, Kinds.installPlan, namespace)).filter((plan) => csvNamesOf(plan).includes(csv));

describe('approval follows the Subscriptions whose bundles a plan holds', () => {
  it('installs an Automatic Subscription beside a Manual one that waits for approval, and the Manual plan still waits', async () => {
    const namespace = 'manual-beside-automatic';
    await createOperatorNamespace(environment.client, namespace);
    await environment.client.create(subscription(namespace, 'acme-database', { installPlanApproval: 'Manual' }));
    const [manualPlan] = await eventually(async () => {
      const plans = await planFor(namespace, 'acme-database.v1.2.0');
      return plans.length === 1 && phaseOf(plans[0]) === 'RequiresApproval' && plans;
    });
    expect(manualPlan!.spec).toMatchObject({ approval: 'Manual', approved: false });

    await environment.client.create(subscription(namespace, 'acme-monitoring', { installPlanApproval: 'Automatic' }));
    const [automaticPlan] = await eventually(async () => {
      const plans = await planFor(namespace, 'acme-monitoring.v0.1.0');
      return plans.length === 1 && phaseOf(plans[0]) === 'Complete' && plans;
    }, { message: 'acme-monitoring installed by an Automatic plan' });
    expect(automaticPlan!.spec).toMatchObject({ approval: 'Automatic', approved: true });
    // The Manual Subscription's bundle was not pulled into the Automatic plan, and its own plan still waits.
    expect(csvNamesOf(automaticPlan!)).toEqual(['acme-monitoring.v0.1.0']);
    expect(await get(environment.client, Kinds.clusterServiceVersion, namespace, 'acme-database.v1.2.0')).toBeUndefined();
    expect(phaseOf(await get(environment.client, Kinds.installPlan, namespace, manualPlan!.metadata!.name!))).toBe('RequiresApproval');

    // Approved, it installs as before.
    await approveInstallPlan(environment.cluster.server, environment.client, namespace, manualPlan!.metadata!.name!);
    await eventually(async () => phaseOf(await get(environment.client, Kinds.installPlan, namespace, manualPlan!.metadata!.name!)) === 'Complete');
  });

  it('splits Subscriptions created together: the Automatic one installs at once, the Manual one waits in a plan of its own', async () => {
    // acme-monitoring requires acme-database, not the other way round: the database need not wait for the monitoring's approval.
    const namespace = 'manual-and-automatic-together';
    await createOperatorNamespace(environment.client, namespace);
    await Promise.all([
      environment.client.create(subscription(namespace, 'acme-monitoring', { installPlanApproval: 'Manual' })),
      environment.client.create(subscription(namespace, 'acme-database', { installPlanApproval: 'Automatic' })),
    ]);
    await eventually(async () => phaseOf((await planFor(namespace, 'acme-database.v1.2.0'))[0]) === 'Complete', { message: 'acme-database installed' });
    const [manualPlan] = await eventually(async () => {
      const plans = await planFor(namespace, 'acme-monitoring.v0.1.0');
      return plans.length === 1 && phaseOf(plans[0]) === 'RequiresApproval' && plans;
    }, { message: 'acme-monitoring waiting for approval' });
    expect(csvNamesOf(manualPlan!)).toEqual(['acme-monitoring.v0.1.0']);
    expect(csvNamesOf((await planFor(namespace, 'acme-database.v1.2.0'))[0]!)).toEqual(['acme-database.v1.2.0']);
  });

  it('keeps an Automatic operator with the Manual one it requires: one plan that waits for approval', async () => {
    const namespace = 'automatic-needs-manual';
    await createOperatorNamespace(environment.client, namespace);
    await Promise.all([
      environment.client.create(subscription(namespace, 'acme-database', { installPlanApproval: 'Manual' })),
      environment.client.create(subscription(namespace, 'acme-backup', { installPlanApproval: 'Automatic' })),
    ]);
    const [plan] = await eventually(async () => {
      const plans = await planFor(namespace, 'acme-backup.v0.2.0');
      return plans.length === 1 && phaseOf(plans[0]) === 'RequiresApproval' && plans;
    }, { message: 'acme-backup waiting with acme-database' });
    expect(csvNamesOf(plan!).sort()).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);
    expect(await get(environment.client, Kinds.clusterServiceVersion, namespace, 'acme-backup.v0.2.0')).toBeUndefined();
  });
});
