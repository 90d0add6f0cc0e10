import type { CachedObject } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvManifest, eventually, sleep, startHarness } from './helpers.js';

type Json = Record<string, any>;
const operatorCondition = { apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition' };
const csvKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' };
const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' };
const roleBinding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' };

let harness: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.stop();
});

const find = async (kind: { apiVersion: string; kind: string }, namespace: string, name: string): Promise<Json | undefined> => harness.client.find({ ...kind, namespace, name });

async function namespace(name: string): Promise<void> {
  await harness.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

describe('OperatorConditions generated for CSVs', () => {
  it('creates one per CSV, owned by it, with its deployments and service accounts, and the Role and RoleBinding for them', async () => {
    await namespace('oc-basic');
    const csv = await harness.client.create(
      csvManifest('oc-basic', 'db.v1', { deployments: ['db-operator'], clusterPermissions: ['db-cluster'], permissions: ['db'] }),
    );
    const condition = await eventually(() => find(operatorCondition, 'oc-basic', 'db.v1'), { message: 'OperatorCondition created' });
    expect(condition.spec).toEqual({ deployments: ['db-operator'], serviceAccounts: ['db-cluster', 'db'] });
    expect(condition.metadata.ownerReferences).toEqual([
      { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'db.v1', uid: csv.metadata?.uid, controller: false, blockOwnerDeletion: true },
    ]);

    const ownedByCondition = [{ apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition', name: 'db.v1', uid: condition.metadata.uid, controller: false, blockOwnerDeletion: true }];
    const boundRole = await eventually(() => find(role, 'oc-basic', 'db.v1'), { message: 'Role created' });
    expect(boundRole.metadata.ownerReferences).toEqual(ownedByCondition);
    expect(boundRole.rules).toEqual([
      { verbs: ['get', 'update', 'patch'], apiGroups: ['operators.coreos.com'], resources: ['operatorconditions'], resourceNames: ['db.v1'] },
      { verbs: ['get', 'update', 'patch'], apiGroups: ['operators.coreos.com'], resources: ['operatorconditions/status'], resourceNames: ['db.v1'] },
    ]);
    const binding = await eventually(() => find(roleBinding, 'oc-basic', 'db.v1'), { message: 'RoleBinding created' });
    expect(binding.metadata.ownerReferences).toEqual(ownedByCondition);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'db.v1' });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'db-cluster', namespace: 'oc-basic' },
      { kind: 'ServiceAccount', name: 'db', namespace: 'oc-basic' },
    ]);
  });

  it('follows the CSV\'s install strategy, keeping what the admin and the operator wrote', async () => {
    await namespace('oc-follow');
    await harness.client.create(csvManifest('oc-follow', 'app.v1', { deployments: ['app'] }));
    const first = await eventually(() => find(operatorCondition, 'oc-follow', 'app.v1'), { message: 'OperatorCondition created' });
    // No permissions: the deployments run as `default`.
    expect(first.spec.serviceAccounts).toEqual(['default']);
    const override = { type: 'Upgradeable', status: 'False', reason: 'Hold', message: 'admin says wait' };
    await harness.client.replace({ ...first, spec: { ...first.spec, overrides: [override] } });

    const csv = await harness.client.get<Json & CachedObject>({ ...csvKind, namespace: 'oc-follow', name: 'app.v1' });
    csv.spec.install.spec.permissions = [{ serviceAccountName: 'app', rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] }];
    csv.spec.install.spec.deployments.push({ ...csv.spec.install.spec.deployments[0], name: 'app-webhook' });
    await harness.client.replace(csv);
    const updated = await eventually(async () => {
      const current = await find(operatorCondition, 'oc-follow', 'app.v1');
      return current?.spec.serviceAccounts?.[0] === 'app' ? current : undefined;
    }, { message: 'OperatorCondition updated' });
    expect(updated.spec).toEqual({ deployments: ['app', 'app-webhook'], serviceAccounts: ['app'], overrides: [override] });
    await eventually(async () => (await find(roleBinding, 'oc-follow', 'app.v1'))?.subjects?.[0]?.name === 'app', { message: 'RoleBinding follows' });
  });

  it('mirrors the operator\'s spec.conditions into status at the current generation, and then stops writing', async () => {
    await namespace('oc-mirror');
    await harness.client.create(csvManifest('oc-mirror', 'op.v1', { deployments: ['op'], permissions: ['op'] }));
    const created = await eventually(() => find(operatorCondition, 'oc-mirror', 'op.v1'), { message: 'OperatorCondition created' });
    const reported = { type: 'Upgradeable', status: 'False', reason: 'Migrating', message: 'migration running', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const written: Json = await harness.client.replace({ ...created, spec: { ...created.spec, conditions: [reported] } });
    const generation = written.metadata.generation;
    const mirrored = await eventually(async () => {
      const current = await find(operatorCondition, 'oc-mirror', 'op.v1');
      return current?.status?.conditions?.[0]?.observedGeneration === generation ? current : undefined;
    }, { message: 'status mirrored' });
    expect(mirrored.status.conditions).toEqual([{ ...reported, observedGeneration: generation }]);

    // Settled: no further writes (each would bump the resourceVersion).
    await sleep(300);
    const settled = await find(operatorCondition, 'oc-mirror', 'op.v1');
    await sleep(500);
    expect((await find(operatorCondition, 'oc-mirror', 'op.v1'))!.metadata.resourceVersion).toBe(settled!.metadata.resourceVersion);

    // The operator flips it: the status follows with a new transition time.
    const flipped: Json = await harness.client.replace({ ...settled!, spec: { ...settled!.spec, conditions: [{ ...reported, status: 'True', reason: 'Done', message: 'done', lastTransitionTime: '2026-01-02T00:00:00Z' }] } });
    const after = await eventually(async () => {
      const current = await find(operatorCondition, 'oc-mirror', 'op.v1');
      return current?.status?.conditions?.[0]?.status === 'True' ? current : undefined;
    }, { message: 'status follows' });
    expect(after.status.conditions).toEqual([
      { type: 'Upgradeable', status: 'True', reason: 'Done', message: 'done', lastTransitionTime: '2026-01-02T00:00:00Z', observedGeneration: flipped.metadata.generation },
    ]);
  });

  it('repairs its Role and RoleBinding, and puts back a deleted OperatorCondition while the CSV exists', async () => {
    await namespace('oc-repair');
    await harness.client.create(csvManifest('oc-repair', 'fix.v1', { deployments: ['fix'], permissions: ['fix'] }));
    const first = await eventually(() => find(operatorCondition, 'oc-repair', 'fix.v1'), { message: 'OperatorCondition created' });
    const boundRole = await eventually(() => find(role, 'oc-repair', 'fix.v1'), { message: 'Role created' });
    await harness.client.replace({ ...boundRole, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
    await eventually(async () => (await find(role, 'oc-repair', 'fix.v1'))?.rules?.[0]?.resources?.[0] === 'operatorconditions', { message: 'Role repaired' });
    await harness.client.delete({ ...roleBinding, namespace: 'oc-repair', name: 'fix.v1' });
    await eventually(() => find(roleBinding, 'oc-repair', 'fix.v1'), { message: 'RoleBinding recreated' });

    await harness.client.delete({ ...operatorCondition, namespace: 'oc-repair', name: 'fix.v1' });
    const again = await eventually(async () => {
      const current = await find(operatorCondition, 'oc-repair', 'fix.v1');
      return current && current.metadata.uid !== first.metadata.uid ? current : undefined;
    }, { message: 'OperatorCondition recreated' });
    expect(again.spec).toEqual({ deployments: ['fix'], serviceAccounts: ['fix'] });
    // The Role of the old one went with it; the new one gets its own.
    await eventually(async () => (await find(role, 'oc-repair', 'fix.v1'))?.metadata.ownerReferences?.[0]?.uid === again.metadata.uid, { message: 'Role of the new OperatorCondition' });
  });

  it('binds only the service accounts that can exist when a CSV names others, and carries on', async () => {
    await namespace('oc-hostile');
    await harness.client.create(csvManifest('oc-hostile', 'odd.v1', { deployments: ['odd'], permissions: ['Bad_Name', 'good'] }));
    const condition = await eventually(() => find(operatorCondition, 'oc-hostile', 'odd.v1'), { message: 'OperatorCondition created' });
    expect(condition.spec.serviceAccounts).toEqual(['Bad_Name', 'good']);
    const binding = await eventually(() => find(roleBinding, 'oc-hostile', 'odd.v1'), { message: 'RoleBinding created' });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'good', namespace: 'oc-hostile' }]);
  });

  it('makes none for a copied CSV, and the garbage collector removes it, its Role and RoleBinding with the CSV', async () => {
    await namespace('oc-gone');
    await harness.client.create(csvManifest('oc-gone', 'copy.v1', { deployments: ['copy'], labels: { 'olm.copiedFrom': 'elsewhere' } }));
    await harness.client.create(csvManifest('oc-gone', 'gone.v1', { deployments: ['gone'] }));
    await eventually(() => find(roleBinding, 'oc-gone', 'gone.v1'), { message: 'RoleBinding created' });
    expect(await find(operatorCondition, 'oc-gone', 'copy.v1')).toBeUndefined();

    await harness.client.delete({ ...csvKind, namespace: 'oc-gone', name: 'gone.v1' });
    await eventually(async () => !(await find(operatorCondition, 'oc-gone', 'gone.v1')), { message: 'OperatorCondition removed' });
    await eventually(async () => !(await find(role, 'oc-gone', 'gone.v1')) && !(await find(roleBinding, 'oc-gone', 'gone.v1')), { message: 'RBAC removed' });
  });
});
