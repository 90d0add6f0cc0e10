import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import {
  createNamespace,
  createOperatorGroup,
  csv,
  eventually,
  getCsv,
  groupSynced,
  installPermissions,
  listAll,
  useController,
  waitForPhase,
  type RbacObject,
} from './helpers.js';

const harness = useController();

const configmapRules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
const namespaceView = { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] };

/** A namespace with a service account and a group, and a CSV whose permissions an "InstallPlan" created. */
async function installOperator(namespace: string, groupSpec: Record<string, unknown>, name = 'rbac.v1') {
  const { client } = harness.env;
  await createNamespace(client, namespace);
  await createOperatorGroup(client, namespace, 'og', groupSpec);
  await groupSynced(client, namespace, 'og');
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace, name: 'operator' } });
  await client.create(csv({ namespace, name, serviceAccounts: ['operator'] }));
  const objects = await installPermissions(client, namespace, name);
  const role = objects.find((object) => object.kind === 'Role')!;
  const binding = objects.find((object) => object.kind === 'RoleBinding')!;
  await waitForPhase(client, namespace, name, 'Succeeded');
  return { roleName: role.metadata!.name!, bindingName: binding.metadata!.name! };
}

const copiesSelector = (namespace: string, name = 'rbac.v1') => `olm.copiedFrom=${namespace},olm.owner=${name}`;

describe('RBAC in target namespaces', () => {
  it('copies the Roles and RoleBindings of a MultiNamespace operator into each target namespace, owned by the copied CSVs', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'rbac-a');
    await createNamespace(client, 'rbac-b');
    await createNamespace(client, 'rbac-other');
    const { roleName } = await installOperator('rbac-op', { targetNamespaces: ['rbac-a', 'rbac-b'] });

    const roles = await eventually(async () => {
      const items = await listAll(client, Kinds.role, copiesSelector('rbac-op'));
      return items.length === 2 && items.every((role) => (role.metadata?.ownerReferences ?? []).length === 1) ? items : undefined;
    }, { message: 'a Role copy per target namespace, owned by the copied CSV' });
    expect(roles.map((role) => role.metadata?.namespace).sort()).toEqual(['rbac-a', 'rbac-b']);
    for (const role of roles) {
      const namespace = role.metadata!.namespace!;
      expect(role.metadata?.name).toBe(roleName);
      expect(role.rules).toEqual(configmapRules);
      expect(role.metadata?.labels).toMatchObject({
        'olm.copiedFrom': 'rbac-op',
        'olm.owner': 'rbac.v1',
        'olm.owner.namespace': namespace,
        'olm.owner.kind': 'ClusterServiceVersion',
        'olm.managed': 'true',
      });
      const copy = await getCsv(client, namespace, 'rbac.v1');
      expect(role.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'ClusterServiceVersion', name: 'rbac.v1', uid: copy?.metadata?.uid });
    }
    const bindings = await eventually(async () => {
      const items = await listAll(client, Kinds.roleBinding, copiesSelector('rbac-op'));
      return items.length === 2 ? items : undefined;
    }, { message: 'a RoleBinding copy per target namespace' });
    for (const binding of bindings) {
      expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName });
      // The operator's service account, in the operator namespace.
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'operator', namespace: 'rbac-op' }]);
    }
    expect(await client.find({ ...Kinds.role, namespace: 'rbac-other', name: roleName })).toBeUndefined();
    // Nothing lifted for a group that does not target all namespaces.
    expect(await client.find({ ...Kinds.clusterRole, name: roleName })).toBeUndefined();

    // A copy edited by hand is put back.
    await client.patch({ ...Kinds.role, namespace: 'rbac-a', name: roleName }, { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] });
    await eventually(async () => {
      const role = await client.get<RbacObject>({ ...Kinds.role, namespace: 'rbac-a', name: roleName });
      return isDeepStrictEqual(role.rules, configmapRules);
    }, { message: 'edited copy restored' });
    // A deleted copy comes back.
    await client.delete({ ...Kinds.roleBinding, namespace: 'rbac-b', name: roleName });
    await eventually(() => client.find({ ...Kinds.roleBinding, namespace: 'rbac-b', name: roleName }), { message: 'deleted copy recreated' });

    // A namespace no longer targeted loses its copies.
    await client.patch({ ...Kinds.operatorGroup, namespace: 'rbac-op', name: 'og' }, { spec: { targetNamespaces: ['rbac-a'] } });
    await eventually(async () => {
      const items = await listAll(client, Kinds.role, copiesSelector('rbac-op'));
      return items.length === 1 && items[0]!.metadata?.namespace === 'rbac-a';
    }, { message: 'copy in rbac-b removed' });
    await eventually(async () => (await listAll(client, Kinds.roleBinding, copiesSelector('rbac-op'))).length === 1, { message: 'binding in rbac-b removed' });

    // The CSV goes: its copies go.
    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'rbac-op', name: 'rbac.v1' });
    await eventually(async () => (await listAll(client, Kinds.role, copiesSelector('rbac-op'))).length === 0, { message: 'copies removed with the CSV' });
    await eventually(async () => (await listAll(client, Kinds.roleBinding, copiesSelector('rbac-op'))).length === 0, { message: 'binding copies removed with the CSV' });
  });

  it('follows the permissions when the CSV asks for other rules', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'rbac-follow-target');
    const { roleName } = await installOperator('rbac-follow', { targetNamespaces: ['rbac-follow-target'] }, 'follow.v1');
    await eventually(() => client.find({ ...Kinds.role, namespace: 'rbac-follow-target', name: roleName }), { message: 'first copy' });

    const wider = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }];
    const live = await client.get<{ spec: { install: { spec: { permissions: Array<{ rules: unknown }> } } } } & RbacObject>({
      ...Kinds.clusterServiceVersion,
      namespace: 'rbac-follow',
      name: 'follow.v1',
    });
    live.spec.install.spec.permissions[0]!.rules = wider;
    await client.replace(live);
    // The next InstallPlan creates the Role for the new rules (its name hashes them).
    const objects = await installPermissions(client, 'rbac-follow', 'follow.v1');
    const newName = objects.find((object) => object.kind === 'Role')!.metadata!.name!;
    expect(newName).not.toBe(roleName);
    const copy = await eventually(() => client.find<RbacObject>({ ...Kinds.role, namespace: 'rbac-follow-target', name: newName }), { message: 'copy of the new Role' });
    expect(copy.rules).toEqual(wider);
    await eventually(async () => !(await client.find({ ...Kinds.role, namespace: 'rbac-follow-target', name: roleName })), { message: 'old copy removed' });
  });

  it('lifts the Roles and RoleBindings of an AllNamespaces operator to cluster scope, and drops them when the group narrows', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'rbac-narrow');
    const { roleName, bindingName } = await installOperator('rbac-global', {}, 'global.v1');
    const clusterRole = await eventually(() => client.find<RbacObject>({ ...Kinds.clusterRole, name: roleName }), { message: 'lifted ClusterRole' });
    expect(clusterRole.rules).toEqual([...configmapRules, namespaceView]);
    expect(clusterRole.metadata?.labels).toMatchObject({
      'olm.owner': 'global.v1',
      'olm.owner.namespace': 'rbac-global',
      'olm.owner.kind': 'ClusterServiceVersion',
      'olm.managed': 'true',
    });
    const clusterBinding = await eventually(() => client.find<RbacObject>({ ...Kinds.clusterRoleBinding, name: bindingName }), { message: 'lifted ClusterRoleBinding' });
    expect(clusterBinding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName });
    expect(clusterBinding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'operator', namespace: 'rbac-global' }]);
    // Lifted instead of copied: no Role copies in the other namespaces.
    expect(await listAll(client, Kinds.role, copiesSelector('rbac-global', 'global.v1'))).toEqual([]);

    // The group narrows to one namespace: the cluster-wide grant goes, a copy comes.
    await client.patch({ ...Kinds.operatorGroup, namespace: 'rbac-global', name: 'og' }, { spec: { targetNamespaces: ['rbac-narrow'] } });
    await eventually(() => client.find({ ...Kinds.role, namespace: 'rbac-narrow', name: roleName }), { message: 'copy after narrowing' });
    await eventually(async () => !(await client.find({ ...Kinds.clusterRole, name: roleName })), { message: 'lifted ClusterRole removed' });
    await eventually(async () => !(await client.find({ ...Kinds.clusterRoleBinding, name: bindingName })), { message: 'lifted binding removed' });
  });

  it('removes the lifted objects, and the CSV-owned cluster RBAC, when the CSV is deleted', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'rbac-bye');
    await createOperatorGroup(client, 'rbac-bye', 'og', {});
    await groupSynced(client, 'rbac-bye', 'og');
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'rbac-bye', name: 'operator' } });
    const manifest = csv({ namespace: 'rbac-bye', name: 'bye.v1', serviceAccounts: ['operator'] });
    const strategySpec = (manifest.spec as { install: { spec: Record<string, unknown> } }).install.spec;
    strategySpec.clusterPermissions = [{ serviceAccountName: 'operator', rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }] }];
    await client.create(manifest);
    const objects = await installPermissions(client, 'rbac-bye', 'bye.v1');
    await waitForPhase(client, 'rbac-bye', 'bye.v1', 'Succeeded');
    const roleName = objects.find((object) => object.kind === 'Role')!.metadata!.name!;
    await eventually(() => client.find({ ...Kinds.clusterRole, name: roleName }), { message: 'lifted ClusterRole' });
    const owned = 'olm.owner=bye.v1,olm.owner.namespace=rbac-bye,olm.owner.kind=ClusterServiceVersion';
    // The lifted pair plus the clusterPermissions pair.
    expect((await listAll(client, Kinds.clusterRole, owned)).length).toBe(2);
    expect((await listAll(client, Kinds.clusterRoleBinding, owned)).length).toBe(2);
    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'rbac-bye', name: 'bye.v1' });
    await eventually(async () => !(await getCsv(client, 'rbac-bye', 'bye.v1')), { message: 'CSV gone' });
    expect(await listAll(client, Kinds.clusterRole, owned)).toEqual([]);
    expect(await listAll(client, Kinds.clusterRoleBinding, owned)).toEqual([]);
  });

  it('gives nothing to an OwnNamespace operator beyond its namespace', async () => {
    const { client } = harness.env;
    const { roleName } = await installOperator('rbac-own', { targetNamespaces: ['rbac-own'] }, 'own.v1');
    // Nothing is ever made for it; this only checks that nothing was made by the time it Succeeded.
    expect(await listAll(client, Kinds.role, copiesSelector('rbac-own', 'own.v1'))).toEqual([]);
    expect(await client.find({ ...Kinds.clusterRole, name: roleName })).toBeUndefined();
  });
});
