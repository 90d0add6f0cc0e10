import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '@olm/core';
import { createManager } from '@olm/controller-runtime';
import { createCsvController } from '@olm/controller-csv';
import { createOperatorGroupsController } from '@olm/controller-operator-groups';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { writeCatalog } from './fbc-catalog.js';
import { approveInstallPlan, condition, createOperatorNamespace, eventually, get, list, startCluster, startController, subscription } from './helpers.js';

// An operator upgrade whose CRD drops a version the existing CRD lists in status.storedVersions, with the
// real controllers (catalog and OLM operator) on the embedded API server, which keeps storedVersions as
// kube-apiserver does. OLM refuses the plan with upstream's message; once the admin has migrated (storage
// moved, the old version removed from status.storedVersions) a new plan goes through.

const crdName = 'gadgets.stored.example.com';
const namespace = 'stored';
const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };

function gadgetCrd(versions: Array<{ name: string; storage: boolean; served?: boolean }>): AnyObject & { spec: Record<string, unknown> } {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName },
    spec: {
      group: 'stored.example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: versions.map((version) => ({ served: true, ...version, schema })),
    },
  };
}

let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let stopControllers: () => Promise<void>;
const directory = mkdtempSync(join(tmpdir(), 'olm-stored-versions-'));

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  // 1.0.0 stores gadgets in v1alpha1 (v1 is served too); 2.0.0 ships the CRD with v1 alone.
  writeCatalog(directory, [
    {
      name: 'gadget-op',
      defaultChannel: 'stable',
      channels: { stable: [{ name: 'gadget-op.v1.0.0' }, { name: 'gadget-op.v2.0.0', replaces: 'gadget-op.v1.0.0' }] },
      bundles: [
        { name: 'gadget-op.v1.0.0', version: '1.0.0', provides: [{ group: 'stored.example.com', version: 'v1alpha1', kind: 'Gadget' }], objects: [gadgetCrd([{ name: 'v1alpha1', storage: true }, { name: 'v1', storage: false }])] },
        { name: 'gadget-op.v2.0.0', version: '2.0.0', provides: [{ group: 'stored.example.com', version: 'v1', kind: 'Gadget' }], objects: [gadgetCrd([{ name: 'v1', storage: true }])] },
      ],
    },
  ]);
  const csvController = createCsvController({ client, rbacGenerator: createRbacGenerator(), requeueAfterMs: 500, healthPollMs: 200 });
  const manager = createManager({ kubeconfig: cluster.server.kubeconfig, gracefulShutdownTimeoutMs: 2_000 });
  for (const reconciler of csvController.reconcilers) manager.add(reconciler);
  for (const reconciler of createOperatorGroupsController({ client, rbacGenerator: createRbacGenerator() }).reconcilers) manager.add(reconciler);
  await manager.start();
  const catalog = await startController(cluster.server, client, { installPlanRetryTimeoutMs: 500 });
  stopControllers = async () => {
    await catalog.stop();
    await manager.stop();
  };
});
afterAll(async () => {
  await stopControllers?.();
  await cluster?.stop();
  rmSync(directory, { recursive: true, force: true });
});

const statusOf = (object: AnyObject | undefined) => (object?.status ?? {}) as Record<string, any>;
const generationOf = (plan: AnyObject) => (plan.spec as { generation: number }).generation;

/** The InstallPlan of `generation` once it is in `phase`. */
async function planAt(generation: number, phase: string): Promise<AnyObject> {
  return eventually(async () => (await list(client, Kinds.installPlan, namespace)).find((plan) => generationOf(plan) === generation && statusOf(plan).phase === phase), {
    timeoutMs: 30_000,
    message: `InstallPlan generation ${generation} ${phase}`,
  });
}

describe('an upgrade whose CRD drops a stored version', { timeout: 90_000 }, () => {
  it('fails its InstallPlan with upstream words and installs nothing of the new version; after the migration a new plan goes through', async () => {
    await createOperatorNamespace(client, namespace);
    await client.create({ ...Kinds.catalogSource, metadata: { name: 'local', namespace }, spec: { sourceType: 'fbc-directory', address: directory } });
    await client.create(subscription(namespace, 'gadget-op', { source: 'local', sourceNamespace: namespace, startingCSV: 'gadget-op.v1.0.0', installPlanApproval: 'Manual' }));
    await approveInstallPlan(cluster.server, client, namespace, (await planAt(1, 'RequiresApproval')).metadata!.name!);
    await eventually(async () => statusOf(await get(client, Kinds.clusterServiceVersion, namespace, 'gadget-op.v1.0.0')).phase === 'Succeeded', { timeoutMs: 30_000, message: 'v1.0.0 Succeeded' });
    expect(statusOf(await get(client, Kinds.customResourceDefinition, undefined, crdName)).storedVersions).toEqual(['v1alpha1']);
    await client.create({ apiVersion: 'stored.example.com/v1alpha1', kind: 'Gadget', metadata: { name: 'old', namespace }, spec: { size: 1 } });

    const upgrade = await planAt(2, 'RequiresApproval');
    expect((upgrade.spec as { clusterServiceVersionNames: string[] }).clusterServiceVersionNames).toEqual(['gadget-op.v2.0.0']);
    await approveInstallPlan(cluster.server, client, namespace, upgrade.metadata!.name!);
    const failed = await planAt(2, 'Failed');
    const message = `risk of data loss updating "${crdName}": new CRD removes version v1alpha1 that is listed as a stored version on the existing CRD`;
    expect(condition(failed, 'Installed')).toMatchObject({ status: 'False', reason: 'InstallComponentFailed', message });
    // nothing of 2.0.0: no CSV, the CRD as 1.0.0 left it, the Subscription still on 1.0.0 and told why
    expect(await get(client, Kinds.clusterServiceVersion, namespace, 'gadget-op.v2.0.0')).toBeUndefined();
    expect(statusOf(await get(client, Kinds.clusterServiceVersion, namespace, 'gadget-op.v1.0.0')).phase).toBe('Succeeded');
    const untouched = await get(client, Kinds.customResourceDefinition, undefined, crdName);
    expect((untouched?.spec as { versions: Array<{ name: string }> }).versions.map((version) => version.name)).toEqual(['v1alpha1', 'v1']);
    const sub = await eventually(async () => {
      const found = await get(client, Kinds.subscription, namespace, 'gadget-op');
      return condition(found, 'InstallPlanFailed') && found;
    });
    expect(statusOf(sub).installedCSV).toBe('gadget-op.v1.0.0');
    // the API server would refuse the same CRD too, in kube-apiserver's words
    const refused = await client.replace({ ...untouched!, spec: gadgetCrd([{ name: 'v1', storage: true }]).spec }).catch((error: unknown) => error);
    expect(String((refused as { message?: string }).message ?? refused)).toContain('status.storedVersions[0]: Invalid value: "v1alpha1": must appear in spec.versions');

    // The admin migrates: v1 becomes the storage version and v1alpha1 is no longer served (OLM refuses to drop a
    // served version objects can be read in), the objects are rewritten in v1, v1alpha1 leaves storedVersions.
    const crd = (await get(client, Kinds.customResourceDefinition, undefined, crdName))!;
    const moved = await client.replace<AnyObject>({ ...crd, spec: gadgetCrd([{ name: 'v1alpha1', storage: false, served: false }, { name: 'v1', storage: true }]).spec });
    expect(statusOf(moved).storedVersions).toEqual(['v1alpha1', 'v1']);
    const gadget = (await client.find<AnyObject>({ apiVersion: 'stored.example.com/v1', kind: 'Gadget', name: 'old', namespace }))!;
    await client.replace({ ...gadget, metadata: { ...gadget.metadata, annotations: { migrated: 'true' } } });
    await client.replaceStatus({ ...moved, status: { ...statusOf(moved), storedVersions: ['v1'] } });

    // Deleting the failed plan lets the Subscription resolve the upgrade again.
    await client.delete({ ...Kinds.installPlan, name: failed.metadata!.name!, namespace });
    const retry = await planAt(3, 'RequiresApproval');
    await approveInstallPlan(cluster.server, client, namespace, retry.metadata!.name!);
    await planAt(3, 'Complete');
    await eventually(async () => statusOf(await get(client, Kinds.clusterServiceVersion, namespace, 'gadget-op.v2.0.0')).phase === 'Succeeded', { timeoutMs: 30_000, message: 'v2.0.0 Succeeded' });
    const upgraded = await get(client, Kinds.customResourceDefinition, undefined, crdName);
    expect((upgraded?.spec as { versions: Array<{ name: string }> }).versions.map((version) => version.name)).toEqual(['v1']);
    expect(statusOf(upgraded).storedVersions).toEqual(['v1']);
    expect((await client.find<AnyObject>({ apiVersion: 'stored.example.com/v1', kind: 'Gadget', name: 'old', namespace }))?.spec).toEqual({ size: 1 });
  });
});
