import type { KubeClient } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegistryServer } from '@olm/registry';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { condition, createOperatorNamespace, eventually, get, grpcCatalogSource, startCluster, startController, startRegistry, subscription } from './helpers.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let registry: RegistryServer;
let controller: Awaited<ReturnType<typeof startController>>;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  registry = await startRegistry();
  await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
  controller = await startController(cluster.server, client, { installPlanRetryTimeoutMs: 500 });
});
afterAll(async () => {
  await controller?.stop();
  await registry?.stop();
  await cluster?.stop();
});

function databaseCrd(versions: Array<{ name: string; storage: boolean }>): AnyObject {
  return {
    ...Kinds.customResourceDefinition,
    metadata: { name: 'databases.acme.example.com' },
    spec: {
      group: 'acme.example.com',
      names: { plural: 'databases', singular: 'database', kind: 'Database', listKind: 'DatabaseList' },
      scope: 'Namespaced',
      versions: versions.map((version) => ({
        ...version,
        served: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { engine: { type: 'string' } } } } } },
      })),
    },
  };
}

/** Subscribes to acme-database 1.0.0 in a new namespace and waits for its plan to fail. */
async function failedPlan(namespace: string): Promise<AnyObject> {
  await createOperatorNamespace(client, namespace);
  await client.create(subscription(namespace, 'acme-database', { startingCSV: 'acme-database.v1.0.0' }));
  return eventually(async () => {
    const plans = (await client.list<AnyObject>(Kinds.installPlan, { namespace })).items;
    return (plans[0]?.status as { phase?: string } | undefined)?.phase === 'Failed' && plans[0];
  });
}

describe('CRD upgrades in an InstallPlan', () => {
  it('refuses a CRD whose new schema rejects an existing object, failing the plan after the retry timeout', async () => {
    await client.create(databaseCrd([{ name: 'v1', storage: true }]));
    await eventually(async () => condition(await get(client, Kinds.customResourceDefinition, undefined, 'databases.acme.example.com'), 'Established')?.status === 'True');
    await createOperatorNamespace(client, 'data');
    await client.create({ apiVersion: 'acme.example.com/v1', kind: 'Database', metadata: { name: 'legacy', namespace: 'data' }, spec: { engine: 'oracle' } });

    const plan = await failedPlan('crd-a');
    const installed = condition(plan, 'Installed');
    expect(installed).toMatchObject({ status: 'False', reason: 'InstallComponentFailed' });
    expect(installed?.message).toMatch(
      /^error validating existing CRs against new CRD's schema for "databases\.acme\.example\.com": error validating acme\.example\.com\/v1, Kind=Database "data\/legacy": updated validation is too restrictive: /,
    );
    expect((plan.status as { message?: string }).message).toBe(installed?.message);
    const steps = (plan.status as { plan: Array<{ resource: { kind: string }; status: string }> }).plan;
    expect(steps.find((step) => step.resource.kind === 'CustomResourceDefinition')?.status).toBe('Unknown');
    // nothing of the refused version was created: the CSV step comes first, but the check runs before any step
    expect(steps.filter((step) => step.status !== 'Unknown')).toEqual([]);
    expect((await client.list(Kinds.clusterServiceVersion, { namespace: 'crd-a' })).items).toEqual([]);
    // the CRD is untouched
    const crd = await get(client, Kinds.customResourceDefinition, undefined, 'databases.acme.example.com');
    expect(JSON.stringify(crd?.spec)).not.toContain('postgres');
    const sub = await eventually(async () => {
      const found = await get(client, Kinds.subscription, 'crd-a', 'acme-database');
      return condition(found, 'InstallPlanFailed') && found;
    });
    expect(condition(sub, 'InstallPlanFailed')).toMatchObject({ status: 'True', reason: 'InstallComponentFailed' });
  });

  it('refuses a CRD that drops a version listed in status.storedVersions', async () => {
    // The previous test's namespace goes first: an upgrade plan of its still executing could otherwise
    // create the CRD again between the delete and the create below.
    await client.delete({ ...Kinds.namespace, name: 'crd-a' });
    await eventually(async () => !(await get(client, Kinds.namespace, undefined, 'crd-a')));
    await client.delete({ ...Kinds.customResourceDefinition, name: 'databases.acme.example.com' });
    // the API server removes the CRD's objects first; the name is free once the create works
    await eventually(async () => !!(await client.create(databaseCrd([{ name: 'v1alpha1', storage: true }, { name: 'v1', storage: false }]))));
    await eventually(async () => condition(await get(client, Kinds.customResourceDefinition, undefined, 'databases.acme.example.com'), 'Established')?.status === 'True');

    const plan = await failedPlan('crd-b');
    expect(condition(plan, 'Installed')).toMatchObject({
      status: 'False',
      reason: 'InstallComponentFailed',
      message: 'risk of data loss updating "databases.acme.example.com": new CRD removes version v1alpha1 that is listed as a stored version on the existing CRD',
    });
  });

  it('refuses a CRD that drops a served version while custom resources exist', async () => {
    await client.delete({ ...Kinds.namespace, name: 'crd-b' });
    await eventually(async () => !(await get(client, Kinds.namespace, undefined, 'crd-b')));
    await client.delete({ ...Kinds.customResourceDefinition, name: 'databases.acme.example.com' });
    // v1 is the storage (and only stored) version; v1alpha1 is served, and the bundle's CRD lacks it
    await eventually(async () => !!(await client.create(databaseCrd([{ name: 'v1alpha1', storage: false }, { name: 'v1', storage: true }]))));
    await eventually(async () => condition(await get(client, Kinds.customResourceDefinition, undefined, 'databases.acme.example.com'), 'Established')?.status === 'True');
    await client.create({ apiVersion: 'acme.example.com/v1', kind: 'Database', metadata: { name: 'kept', namespace: 'data' }, spec: { engine: 'postgres' } });

    const plan = await failedPlan('crd-c');
    expect(condition(plan, 'Installed')).toMatchObject({
      status: 'False',
      reason: 'InstallComponentFailed',
      message:
        'not allowing CRD (databases.acme.example.com) update with unincluded version v1alpha1: it is served and 1 existing custom resource can be read in it; set served: false on v1alpha1 in one upgrade and remove it in a later one',
    });
    expect((await client.list(Kinds.clusterServiceVersion, { namespace: 'crd-c' })).items).toEqual([]);
  });

  it('creates again a CRD deleted while its step waited for the API, then completes', async () => {
    await createOperatorNamespace(client, 'waiting');
    const created = await client.create<AnyObject>({
      ...Kinds.installPlan,
      metadata: { name: 'waiting-plan', namespace: 'waiting' },
      spec: { clusterServiceVersionNames: [], approval: 'Automatic', approved: true, generation: 1 },
    });
    const crd = {
      ...Kinds.customResourceDefinition,
      metadata: { name: 'gadgets.waiting.example.com' },
      spec: {
        group: 'waiting.example.com',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    // as a controller leaves a plan that created the CRD, after someone deleted it
    await client.replaceStatus({
      ...created,
      status: {
        phase: 'Installing',
        catalogSources: [],
        plan: [
          {
            resolving: 'gadgets.v1',
            resource: { sourceName: 's', sourceNamespace: 'olm', group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', name: crd.metadata.name, manifest: JSON.stringify(crd) },
            status: 'WaitingForApi',
          },
        ],
      },
    });
    const done = await eventually(async () => {
      const plan = await get(client, Kinds.installPlan, 'waiting', 'waiting-plan');
      return (plan?.status as { phase?: string } | undefined)?.phase === 'Complete' && plan;
    });
    expect((done.status as { plan: Array<{ status: string }> }).plan[0]!.status).toBe('Created');
    expect(condition(await get(client, Kinds.customResourceDefinition, undefined, crd.metadata.name), 'Established')?.status).toBe('True');
  });

  it('marks a step of an unsupported kind UnsupportedResource and fails the plan after retrying', async () => {
    await createOperatorNamespace(client, 'odd');
    const created = await client.create<AnyObject>({
      ...Kinds.installPlan,
      metadata: { name: 'odd-plan', namespace: 'odd' },
      spec: { clusterServiceVersionNames: [], approval: 'Automatic', approved: true, generation: 1 },
    });
    const manifest = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } });
    await client.replaceStatus({
      ...created,
      status: {
        phase: 'Installing',
        catalogSources: [],
        plan: [{ resolving: 'odd.v1', resource: { sourceName: 's', sourceNamespace: 'olm', group: 'apps', version: 'v1', kind: 'Deployment', name: 'web', manifest }, status: 'Unknown' }],
      },
    });
    const retrying = await eventually(async () => {
      const plan = await get(client, Kinds.installPlan, 'odd', 'odd-plan');
      const status = plan?.status as { phase?: string; message?: string } | undefined;
      return (status?.message?.startsWith('retrying execution due to error: ') || status?.phase === 'Failed') && status;
    });
    if (retrying.phase !== 'Failed') expect(retrying.message).toBe('retrying execution due to error: the InstallPlan contains invalid data');
    const failed = await eventually(async () => {
      const plan = await get(client, Kinds.installPlan, 'odd', 'odd-plan');
      return (plan?.status as { phase?: string } | undefined)?.phase === 'Failed' && plan;
    });
    expect(condition(failed, 'Installed')).toMatchObject({ status: 'False', reason: 'InstallComponentFailed', message: 'the InstallPlan contains invalid data' });
    expect((failed.status as { plan: Array<{ status: string }> }).plan[0]!.status).toBe('UnsupportedResource');
  });
});
