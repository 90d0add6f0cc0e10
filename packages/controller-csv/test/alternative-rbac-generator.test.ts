import type { KubeObject, RbacGenerator, RbacOwner, RbacOwnership } from '@olm/core';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import { createNamespace, createOperatorGroup, csv, eventually, groupSynced, useController, waitForPhase, type RbacObject } from './helpers.js';

/** Upstream's owner label keys and this generator's own. */
const relabel: Readonly<Record<string, string>> = {
  'olm.owner': 'example.com/owner',
  'olm.owner.namespace': 'example.com/owner-namespace',
  'olm.owner.kind': 'example.com/owner-kind',
  'olm.copiedFrom': 'example.com/copied-from',
};

const ownership: RbacOwnership = {
  labelKeys: Object.values(relabel),
  selector: (owner: RbacOwner, options?: { readonly copies?: boolean }) =>
    options?.copies
      ? `example.com/copied-from=${owner.namespace},example.com/owner=${owner.name},example.com/owner-kind=${owner.kind}`
      : `example.com/owner=${owner.name},example.com/owner-namespace=${owner.namespace},example.com/owner-kind=${owner.kind}`,
  ownerOf(labels) {
    const kind = labels['example.com/owner-kind'];
    const name = labels['example.com/owner'];
    if (!name || (kind !== 'ClusterServiceVersion' && kind !== 'OperatorGroup')) return undefined;
    const copiedFrom = labels['example.com/copied-from'];
    return { kind, name, namespace: labels['example.com/owner-namespace'] ?? '', ...(copiedFrom !== undefined ? { copiedFrom } : {}) };
  },
};

function withOwnLabels(objects: KubeObject[]): KubeObject[] {
  return objects.map((object) => {
    const labels = (object.metadata.labels ?? {}) as Record<string, string>;
    const renamed = Object.fromEntries(Object.entries(labels).map(([key, value]) => [relabel[key] ?? key, value]));
    return { ...object, metadata: { ...object.metadata, labels: renamed } };
  });
}

/** A platform team's generator: upstream's objects, but its own owner labels (no `olm.owner*`, no `olm.copiedFrom`). */
function ownLabelsGenerator(): RbacGenerator {
  const real = createRbacGenerator();
  return {
    name: 'own-labels',
    ownership,
    permissionsForCsv: (input) => withOwnLabels(real.permissionsForCsv(input)),
    permissionsForOperatorGroup: (input) => withOwnLabels(real.permissionsForOperatorGroup(input)),
    operatorGroupClusterRoles: (input) => withOwnLabels(real.operatorGroupClusterRoles(input)),
    providedApiClusterRoles: (input) => withOwnLabels(real.providedApiClusterRoles(input)),
    policyRulesHash: (rules) => real.policyRulesHash(rules),
    roleBindingHash: (roleRef, subjects) => real.roleBindingHash(roleRef, subjects),
  };
}

const generator = ownLabelsGenerator();
const harness = useController({}, { rbacGenerator: generator });

describe('an alternative RBAC generator with its own owner labels', () => {
  it("copies the CSV's Roles into the target namespace with its own labels, none of upstream's", async () => {
    const { client } = harness.env;
    await createNamespace(client, 'own-target');
    await createNamespace(client, 'own-op');
    await createOperatorGroup(client, 'own-op', 'og', { targetNamespaces: ['own-target'] });
    await groupSynced(client, 'own-op', 'og');
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'own-op', name: 'operator' } });
    await client.create(csv({ namespace: 'own-op', name: 'own.v1', serviceAccounts: ['operator'] }));
    // What an InstallPlan made with this generator.
    const live = await client.get({ ...Kinds.clusterServiceVersion, namespace: 'own-op', name: 'own.v1' });
    const installed = generator.permissionsForCsv({ csv: live as unknown as KubeObject });
    for (const object of installed) if (object.kind !== 'ServiceAccount') await client.create(object as unknown as RbacObject);
    const roleName = installed.find((object) => object.kind === 'Role')!.metadata.name!;
    await waitForPhase(client, 'own-op', 'own.v1', 'Succeeded');

    const copy = await eventually(() => client.find<RbacObject>({ ...Kinds.role, namespace: 'own-target', name: roleName }), { message: 'the Role copied into the target namespace' });
    expect(copy.metadata?.labels).toMatchObject({ 'example.com/copied-from': 'own-op', 'example.com/owner': 'own.v1', 'example.com/owner-kind': 'ClusterServiceVersion' });
    expect(Object.keys(copy.metadata?.labels ?? {}).filter((key) => key.startsWith('olm.owner') || key === 'olm.copiedFrom')).toEqual([]);

  });

  it('lifts the Roles of an AllNamespaces operator to ClusterRoles with its labels, and removes them with the CSV by its selector', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'own-all');
    await createOperatorGroup(client, 'own-all', 'og', {});
    await groupSynced(client, 'own-all', 'og');
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'own-all', name: 'operator' } });
    await client.create(csv({ namespace: 'own-all', name: 'all.v1', serviceAccounts: ['operator'] }));
    const live = await client.get({ ...Kinds.clusterServiceVersion, namespace: 'own-all', name: 'all.v1' });
    const installed = generator.permissionsForCsv({ csv: live as unknown as KubeObject });
    for (const object of installed) if (object.kind !== 'ServiceAccount') await client.create(object as unknown as RbacObject);
    const roleName = installed.find((object) => object.kind === 'Role')!.metadata.name!;
    await waitForPhase(client, 'own-all', 'all.v1', 'Succeeded');

    const lifted = await eventually(() => client.find<RbacObject>({ ...Kinds.clusterRole, name: roleName }), { message: 'the Role lifted to a ClusterRole' });
    expect(lifted.metadata?.labels).toMatchObject({ 'example.com/owner': 'all.v1', 'example.com/owner-namespace': 'own-all', 'example.com/owner-kind': 'ClusterServiceVersion' });

    // Cluster-scoped objects cannot be owned by a namespaced CSV: only the generator's labels find them when it goes.
    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'own-all', name: 'all.v1' });
    await eventually(async () => ((await client.find({ ...Kinds.clusterRole, name: roleName })) ? undefined : true), {
      message: 'the lifted ClusterRole removed with its CSV',
    });
  });
});
