import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSourceName } from '../../src/local-olm.js';
import { temporaryDirectory, writeCatalog } from './catalogs.js';
import { catalogRevision, csvPhase, getJson, operatorGroup, subscription, waitForSucceeded, type Json } from './kubectl-objects.js';
import { e2eUnavailableReason, eventually, startOlmUp, type OlmUp } from './olm-up.js';

const unavailable = e2eUnavailableReason();
if (unavailable) console.warn(`end-to-end suite skipped: ${unavailable}`);

const v1 = 'acme-database.v1.0.0';
const v2 = 'acme-database.v1.1.0';

/** `kubectl patch --type merge` of an OperatorCondition (`--subresource status` when asked). */
async function patchCondition(up: OlmUp, namespace: string, name: string, patch: Json, subresource?: 'status'): Promise<Json> {
  const args = ['patch', 'operatorcondition', name, '-n', namespace, '--type', 'merge', '-p', JSON.stringify(patch), '-o', 'json'];
  return JSON.parse(await up.kubectlOk(subresource ? [...args, '--subresource', subresource] : args)) as Json;
}

const upgradeable = (status: 'True' | 'False', message: string) => ({
  type: 'Upgradeable',
  status,
  reason: status === 'True' ? 'Ready' : 'Migrating',
  message,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

async function environmentValue(up: OlmUp, namespace: string): Promise<string> {
  return up.kubectlOk([
    'get', 'deployment', 'acme-database-operator', '-n', namespace, '-o', 'jsonpath={.spec.template.spec.containers[0].env[?(@.name=="OPERATOR_CONDITION_NAME")].value}',
  ]);
}

const refsOf = (operator: Json | undefined) => ((operator?.status?.components?.refs ?? []) as Json[]).map((ref) => `${ref.kind}/${ref.name}`);

describe.skipIf(unavailable !== undefined)('end to end: OperatorConditions and the Operator API, with kubectl against olm up', () => {
  let up: OlmUp;
  const catalogDirectory = temporaryDirectory('olm-e2e-gate-');
  const source = catalogSourceName(catalogDirectory);

  beforeAll(async () => {
    writeCatalog(catalogDirectory, { 'acme-database': { defaultChannel: 'stable', channels: { stable: [{ name: v1 }] } } });
    up = await startOlmUp({ catalogs: [catalogDirectory] });
  });
  afterAll(async () => {
    const code = await up?.stop();
    expect(code).toBe(0);
    rmSync(catalogDirectory, { recursive: true, force: true });
  });

  it('1. gives each installed CSV an OperatorCondition, RBAC for its operator to write it, and OPERATOR_CONDITION_NAME', async () => {
    for (const namespace of ['gate', 'gate-admin']) {
      await up.kubectlOk(['apply', '-f', '-'], operatorGroup(namespace, [namespace]) + '---' + subscription(namespace, 'acme-database', { source }));
    }
    await waitForSucceeded(up, 'gate', v1);
    await waitForSucceeded(up, 'gate-admin', v1);

    const csv = (await getJson(up, ['csv', v1, '-n', 'gate']))!;
    const condition = await eventually('the OperatorCondition', () => getJson(up, ['operatorcondition', v1, '-n', 'gate']));
    expect(condition.apiVersion).toBe('operators.coreos.com/v2');
    expect(condition.spec).toEqual({ deployments: ['acme-database-operator'], serviceAccounts: ['acme-database-operator'] });
    expect(condition.metadata.ownerReferences).toEqual([
      { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: v1, uid: csv.metadata.uid, controller: false, blockOwnerDeletion: true },
    ]);
    const role = await eventually('its Role', () => getJson(up, ['role', v1, '-n', 'gate']));
    expect(role.rules).toContainEqual({ verbs: ['get', 'update', 'patch'], apiGroups: ['operators.coreos.com'], resources: ['operatorconditions'], resourceNames: [v1] });
    const binding = await eventually('its RoleBinding', () => getJson(up, ['rolebinding', v1, '-n', 'gate']));
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'acme-database-operator', namespace: 'gate' }]);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: v1 });
    expect(await environmentValue(up, 'gate')).toBe(v1);
  });

  it('2. holds an upgrade while the operator reports Upgradeable=False; its flip or an admin override lets it finish', async () => {
    // In `gate` the operator reports through spec.conditions (operator-lib's way): OLM mirrors it into status.
    const reported = await patchCondition(up, 'gate', v1, { spec: { conditions: [upgradeable('False', 'migration running')] } });
    const mirrored = await eventually('the condition mirrored into status', async () => {
      const current = await getJson(up, ['operatorcondition', v1, '-n', 'gate']);
      return current?.status?.conditions?.[0]?.observedGeneration === reported.metadata.generation ? current : undefined;
    });
    expect(mirrored.status.conditions).toEqual([{ ...upgradeable('False', 'migration running'), observedGeneration: reported.metadata.generation }]);
    // In `gate-admin` the operator writes status itself, for the generation it saw.
    const current = (await getJson(up, ['operatorcondition', v1, '-n', 'gate-admin']))!;
    await patchCondition(up, 'gate-admin', v1, { status: { conditions: [{ ...upgradeable('False', 'backup in progress'), observedGeneration: current.metadata.generation }] } }, 'status');

    // The catalog now offers v1.1.0, replacing v1.0.0.
    const revision = await catalogRevision(up, source);
    writeCatalog(catalogDirectory, { 'acme-database': { defaultChannel: 'stable', channels: { stable: [{ name: v1 }, { name: v2, replaces: v1 }] } } });
    await eventually('the republished catalog', async () => ((await catalogRevision(up, source)) !== revision ? true : undefined), 30_000);

    for (const [namespace, message] of [['gate', 'migration running'], ['gate-admin', 'backup in progress']] as const) {
      const held = await eventually(`${namespace}: ${v2} held`, async () => {
        const csv = await getJson(up, ['csv', v2, '-n', namespace]);
        return csv?.status?.reason === 'OperatorConditionNotUpgradeable' ? csv : undefined;
      }, 90_000);
      expect(held.status.phase).toBe('Pending');
      expect(held.status.message).toBe(`operator is not upgradeable: The operator is not upgradeable: ${message}`);
      // v1.0.0 keeps running; v1.1.0 already has its own OperatorCondition.
      expect((await getJson(up, ['csv', v1, '-n', namespace]))?.metadata?.name).toBe(v1);
      expect(await environmentValue(up, namespace)).toBe(v1);
      expect(await eventually(`${namespace}: ${v2}'s OperatorCondition`, () => getJson(up, ['operatorcondition', v2, '-n', namespace]))).toBeDefined();
    }

    // The operator in `gate` is done: the upgrade finishes, and v1.0.0's OperatorCondition goes with its CSV.
    await patchCondition(up, 'gate', v1, { spec: { conditions: [upgradeable('True', 'migration done')] } });
    await waitForSucceeded(up, 'gate', v2);
    await eventually('v1.0.0 gone from gate', async () => ((await csvPhase(up, 'gate', v1)) === undefined ? true : undefined));
    await eventually('its OperatorCondition gone', async () => ((await getJson(up, ['operatorcondition', v1, '-n', 'gate'])) === undefined ? true : undefined));
    expect((await getJson(up, ['operatorcondition', v2, '-n', 'gate']))!.spec.deployments).toEqual(['acme-database-operator']);
    expect(await environmentValue(up, 'gate')).toBe(v2);

    // In `gate-admin` the operator still says no; the admin's override wins.
    expect((await getJson(up, ['csv', v2, '-n', 'gate-admin']))!.status.reason).toBe('OperatorConditionNotUpgradeable');
    await patchCondition(up, 'gate-admin', v1, { spec: { overrides: [{ type: 'Upgradeable', status: 'True', reason: 'AdminApproved', message: 'upgrade now' }] } });
    await waitForSucceeded(up, 'gate-admin', v2);
    await eventually('its OperatorCondition gone', async () => ((await getJson(up, ['operatorcondition', v1, '-n', 'gate-admin'])) === undefined ? true : undefined));
  }, 240_000);

  it('3. lists installed operators with their components (kubectl get operators), and brings back a deleted one', async () => {
    const table = await up.kubectl(['get', 'operators']);
    expect(table.stderr).toBe('');
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+AGE$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(expect.arrayContaining(['acme-database.gate', 'acme-database.gate-admin']));

    const operator = await eventually('the components after the upgrade', async () => {
      const current = await getJson(up, ['operator', 'acme-database.gate']);
      const refs = refsOf(current);
      return refs.includes(`ClusterServiceVersion/${v2}`) && !refs.includes(`ClusterServiceVersion/${v1}`) && refs.includes(`OperatorCondition/${v2}`) ? current : undefined;
    });
    expect(operator.status.components.labelSelector).toEqual({ matchExpressions: [{ key: 'operators.coreos.com/acme-database.gate', operator: 'Exists' }] });
    const refs = operator.status.components.refs as Json[];
    expect(refsOf(operator)).toEqual(expect.arrayContaining(['Subscription/acme-database', 'Deployment/acme-database-operator', 'ServiceAccount/acme-database-operator']));
    expect(refsOf(operator).filter((ref) => ref.startsWith('InstallPlan/'))).toHaveLength(1);
    expect(refs.find((ref) => ref.kind === 'CustomResourceDefinition')?.name).toMatch(/\.acme\.example\.com$/);
    expect(refs.filter((ref) => ref.kind === 'Role' || ref.kind === 'RoleBinding').length).toBeGreaterThan(0);
    const csvRef = refs.find((ref) => ref.kind === 'ClusterServiceVersion')!;
    expect(csvRef).toMatchObject({ apiVersion: 'operators.coreos.com/v1alpha1', namespace: 'gate', name: v2 });
    expect(csvRef.conditions).toEqual([expect.objectContaining({ type: 'Succeeded', status: 'True', reason: 'InstallSucceeded' })]);
    const deployment = refs.find((ref) => ref.kind === 'Deployment')!;
    expect((deployment.conditions as Json[]).map((condition) => condition.type)).toContain('Available');
    // The label is on the objects, so kubectl selects an operator's parts with it.
    expect((await up.kubectlOk(['get', 'deployments', '-n', 'gate', '-l', 'operators.coreos.com/acme-database.gate', '-o', 'name'])).trim()).toBe(
      'deployment.apps/acme-database-operator',
    );
    expect(await up.kubectlOk(['get', 'operator', 'acme-database.gate', '-o', 'yaml'])).toMatch(/^\s+components:$/m);

    await up.kubectlOk(['delete', 'operator', 'acme-database.gate']);
    const again = await eventually('the Operator back', async () => {
      const current = await getJson(up, ['operator', 'acme-database.gate']);
      return current && current.metadata.uid !== operator.metadata.uid && refsOf(current).includes('Subscription/acme-database') ? current : undefined;
    });
    expect(refsOf(again)).toContain(`ClusterServiceVersion/${v2}`);
  });
});
