import { describe, expect, it } from 'vitest';
import { UpgradeStrategies } from '@olm/api';
import { Kinds } from '../src/kinds.js';
import {
  crdManifest,
  createNamespace,
  createOperatorGroup,
  csv,
  eventually,
  getCsv,
  grantPermissions,
  historyUntil,
  installPermissions,
  listEvents,
  sleep,
  namespaceWithGroup,
  useController,
  waitForPhase,
  type CsvObject,
} from './helpers.js';

/**
 * Rows of upstream's CSV transition table (reference §1.5) not covered elsewhere: csv-lifecycle (None →
 * Pending → InstallReady → Installing → Succeeded, RequirementsNotMet), operator-groups (group failures and
 * their recovery), api-intersection (the OperatorGroup failures), drift (ComponentUnhealthy, NeedsReinstall),
 * health (install timeout, unrecoverable install check), upgrades (Replacing, Deleting, OwnerConflict).
 */

const harness = useController();

const entries = (current: CsvObject) => (current.status?.conditions ?? []).map((condition) => `${condition.phase}/${condition.reason}/${condition.message}`);

describe('Pending', () => {
  it('→ Failed/InvalidInstallStrategy for a strategy nobody provides', async () => {
    await namespaceWithGroup(harness.env.client, 'tr-strategy');
    await harness.env.client.create(csv({ namespace: 'tr-strategy', name: 'helm.v1', strategy: 'helm' }));
    const failed = await waitForPhase(harness.env.client, 'tr-strategy', 'helm.v1', 'Failed', 'InvalidInstallStrategy');
    expect(failed.status?.message).toBe('install strategy invalid: unrecognized install strategy');
    expect(entries(failed)).toEqual([
      'Pending/RequirementsUnknown/requirements not yet checked',
      'Failed/InvalidInstallStrategy/install strategy invalid: unrecognized install strategy',
    ]);
  });

  it('stays Pending/RequirementsNotMet while a required API is missing, then installs once it exists', async () => {
    await namespaceWithGroup(harness.env.client, 'tr-required');
    await harness.env.client.create(
      csv({ namespace: 'tr-required', name: 'needs.v1', requiredCrds: [{ name: 'needed.tr.example.com', version: 'v1', kind: 'Needed' }] }),
    );
    const waiting = await waitForPhase(harness.env.client, 'tr-required', 'needs.v1', 'Pending', 'RequirementsNotMet');
    expect(waiting.status?.message).toBe("one or more requirements couldn't be found");
    expect(waiting.status?.requirementStatus).toContainEqual(
      expect.objectContaining({ kind: 'CustomResourceDefinition', name: 'needed.tr.example.com', status: 'NotPresent', message: 'CRD is not present' }),
    );
    expect(await harness.env.client.find({ ...Kinds.deployment, namespace: 'tr-required', name: 'needs.v1-operator' })).toBeUndefined();
    await harness.env.client.create(crdManifest('needed', 'tr.example.com', 'Needed'));
    await waitForPhase(harness.env.client, 'tr-required', 'needs.v1', 'Succeeded');
  });

  it('→ Pending/OperatorConditionNotUpgradeable while the replaced operator says so (override first, stale status counts as False)', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(harness.env.client, 'tr-upgradeable');
    await client.create(csv({ namespace: 'tr-upgradeable', name: 'gate.v1', deployments: ['gate-v1'] }));
    await waitForPhase(client, 'tr-upgradeable', 'gate.v1', 'Succeeded');
    await client.create({
      apiVersion: 'operators.coreos.com/v2',
      kind: 'OperatorCondition',
      metadata: { namespace: 'tr-upgradeable', name: 'gate.v1' },
      spec: { overrides: [{ type: 'Upgradeable', status: 'False', reason: 'Migrating', message: 'migration running', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    });
    await client.create(csv({ namespace: 'tr-upgradeable', name: 'gate.v2', deployments: ['gate-v2'], replaces: 'gate.v1', version: '2.0.0' }));
    const blocked = await waitForPhase(client, 'tr-upgradeable', 'gate.v2', 'Pending', 'OperatorConditionNotUpgradeable');
    expect(blocked.status?.message).toBe('operator is not upgradeable: The operator is not upgradeable: migration running');
    // The replaced CSV is already marked Replacing (Succeeded → Replacing does not wait for the gate) and stays so.
    expect((await waitForPhase(client, 'tr-upgradeable', 'gate.v1', 'Replacing', 'BeingReplaced')).status?.message).toBe('being replaced by csv: gate.v2');

    // The operator reports Upgradeable=True, then the override goes: the report is for the older
    // generation, so the CSV stays held (a watched change: no moment lets it through).
    const upgradeable = (observedGeneration: number) => ({
      type: 'Upgradeable',
      status: 'True',
      reason: 'Ready',
      message: 'ready',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      observedGeneration,
    });
    const condition = await client.get<CsvObject & { spec: Record<string, unknown> }>({
      apiVersion: 'operators.coreos.com/v2',
      kind: 'OperatorCondition',
      namespace: 'tr-upgradeable',
      name: 'gate.v1',
    });
    const reported = await client.replaceStatus({ ...condition, status: { conditions: [upgradeable(condition.metadata?.generation ?? 1)] } });
    const updated = await client.replace({ ...reported, spec: { conditions: [] } });
    const generation = updated.metadata?.generation ?? 2;
    await eventually(async () => (await getCsv(client, 'tr-upgradeable', 'gate.v2'))?.status?.message === 'operator is not upgradeable: The operatorcondition status "Upgradeable"="True" is outdated', {
      message: 'outdated condition blocks',
    });
    const current = await client.get({ apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition', namespace: 'tr-upgradeable', name: 'gate.v1' });
    await client.replaceStatus({ ...current, status: { conditions: [upgradeable(generation)] } });
    await waitForPhase(client, 'tr-upgradeable', 'gate.v2', 'Succeeded');
    await eventually(async () => !(await getCsv(client, 'tr-upgradeable', 'gate.v1')), { message: 'replaced CSV deleted' });
  });
});

describe('Pending: the upgrade gate', () => {
  it('holds the replacement while an override is anything but True (Unknown too), and releases it when the admin sets True', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(client, 'tr-override');
    await client.create(csv({ namespace: 'tr-override', name: 'hold.v1', deployments: ['hold-v1'] }));
    await waitForPhase(client, 'tr-override', 'hold.v1', 'Succeeded');
    const condition = await client.create({
      apiVersion: 'operators.coreos.com/v2',
      kind: 'OperatorCondition',
      metadata: { namespace: 'tr-override', name: 'hold.v1' },
      spec: { overrides: [{ type: 'Upgradeable', status: 'Unknown', reason: 'Checking', message: 'not sure yet' }] },
    });
    await client.create(csv({ namespace: 'tr-override', name: 'hold.v2', deployments: ['hold-v2'], replaces: 'hold.v1', version: '2.0.0' }));
    const blocked = await waitForPhase(client, 'tr-override', 'hold.v2', 'Pending', 'OperatorConditionNotUpgradeable');
    expect(blocked.status?.message).toBe('operator is not upgradeable: The operator is not upgradeable: not sure yet');
    await client.replace({ ...condition, spec: { overrides: [{ type: 'Upgradeable', status: 'True', reason: 'Approved', message: 'go' }] } });
    await waitForPhase(client, 'tr-override', 'hold.v2', 'Succeeded');
  });
});

describe('Pending (more rows)', () => {
  it('→ Failed/InvalidInstallStrategy when the rule checker refuses a permission rule, and stays so until the CSV is fixed', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(client, 'tr-bad-rule');
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: 'tr-bad-rule', name: 'operator' } });
    await client.create(csv({ namespace: 'tr-bad-rule', name: 'rule.v1', serviceAccounts: ['operator'], rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }] }));
    const failed = await waitForPhase(client, 'tr-bad-rule', 'rule.v1', 'Failed', 'InvalidInstallStrategy');
    expect(failed.status?.message).toBe('install strategy invalid: rule invalid: policy rule must have at least one verb');
    // Not retried in a loop: nothing new is written while the CSV is unchanged.
    await sleep(600);
    const still = await getCsv(client, 'tr-bad-rule', 'rule.v1');
    expect(still?.status?.phase).toBe('Failed');
    expect(entries(still!)).toEqual(entries(failed));

    const live = await client.get<CsvObject & { spec: { install: { spec: { permissions: Array<{ rules: unknown[] }> } } } }>({ ...Kinds.clusterServiceVersion, namespace: 'tr-bad-rule', name: 'rule.v1' });
    live.spec.install.spec.permissions[0]!.rules = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }];
    await client.replace(live);
    await installPermissions(client, 'tr-bad-rule', 'rule.v1');
    await waitForPhase(client, 'tr-bad-rule', 'rule.v1', 'Succeeded');
  });

  it('→ Failed/InvalidWebhookDescription for a repeated webhook name or refused rules, and installs once they are fixed', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(client, 'tr-webhooks');
    const webhook = (generateName: string, rules: unknown[] = [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }]) => ({
      type: 'ValidatingAdmissionWebhook',
      generateName,
      deploymentName: 'hooks.v1-operator',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      rules,
    });
    const manifest = csv({ namespace: 'tr-webhooks', name: 'hooks.v1' });
    (manifest.spec as Record<string, unknown>).webhookdefinitions = [webhook('check.example.com'), webhook('check.example.com')];
    await client.create(manifest);
    const repeated = await waitForPhase(client, 'tr-webhooks', 'hooks.v1', 'Failed', 'InvalidWebhookDescription');
    expect(repeated.status?.message).toBe('CSV contains repeated WebhookDescription name');
    expect(await client.find({ ...Kinds.deployment, namespace: 'tr-webhooks', name: 'hooks.v1-operator' })).toBeUndefined();

    const reference = { ...Kinds.clusterServiceVersion, namespace: 'tr-webhooks', name: 'hooks.v1' };
    await client.patch(reference, { spec: { webhookdefinitions: [webhook('check.example.com', [{ apiGroups: ['operators.coreos.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*'] }])] } });
    await eventually(async () => (await getCsv(client, 'tr-webhooks', 'hooks.v1'))?.status?.message === 'Webhook rules cannot include the OLM group', {
      message: 'InvalidWebhookDescription for the OLM group',
    });
    await client.patch(reference, { spec: { webhookdefinitions: [webhook('check.example.com')] } });
    await waitForPhase(client, 'tr-webhooks', 'hooks.v1', 'Succeeded');
  });

  it('→ Failed/OwnerConflict "unable to adopt APIService" for an owned APIService it may not take over, until it may', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(client, 'tr-apiservice');
    await client.create({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.adopt.example.com' },
      spec: { group: 'adopt.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 },
    });
    const manifest = csv({ namespace: 'tr-apiservice', name: 'adopter.v1' });
    (manifest.spec as Record<string, unknown>).apiservicedefinitions = {
      owned: [{ group: 'adopt.example.com', version: 'v1', kind: 'Adoptee', name: 'adoptees', displayName: 'Adoptees', deploymentName: 'adopter.v1-operator' }],
    };
    await client.create(manifest);
    const conflict = await waitForPhase(client, 'tr-apiservice', 'adopter.v1', 'Failed', 'OwnerConflict');
    expect(conflict.status?.message).toBe('unable to adopt APIService');
    expect(conflict.status?.requirementStatus).toContainEqual(expect.objectContaining({ kind: 'APIService', name: 'v1.adopt.example.com', status: 'DeploymentFound' }));
    expect(await client.find({ ...Kinds.deployment, namespace: 'tr-apiservice', name: 'adopter.v1-operator' })).toBeUndefined();

    // Labelled as this CSV's: adoptable, so the CSV installs and takes the APIService over: its Service and
    // CA are OLM's, its priorities stay. (Nothing serves it here, so it waits: see api-services.test.ts.)
    await client.patch(
      { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.adopt.example.com' },
      { metadata: { labels: { 'olm.owner': 'adopter.v1', 'olm.owner.namespace': 'tr-apiservice', 'olm.owner.kind': 'ClusterServiceVersion' } } },
    );
    await eventually(async () => (await getCsv(client, 'tr-apiservice', 'adopter.v1'))?.status?.message === 'apiServices not installed', { message: 'installed' });
    const adopted = await client.get<CsvObject & { spec: Record<string, unknown> }>({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.adopt.example.com' });
    expect(adopted.spec).toMatchObject({
      groupPriorityMinimum: 100,
      versionPriority: 10,
      service: { namespace: 'tr-apiservice', name: 'adopter.v1-operator-service', port: 443 },
    });
    expect(adopted.spec.caBundle).toEqual(expect.any(String));
  });

  it('stays Pending, unchanged, while the CSV it replaces is not Replacing (a Failed one without fail-forward)', async () => {
    const { client, server } = harness.env;
    await namespaceWithGroup(client, 'tr-wait');
    server.failDeployment('tr-wait', 'wait-v1');
    await client.create(csv({ namespace: 'tr-wait', name: 'wait.v1', deployments: ['wait-v1'] }));
    await waitForPhase(client, 'tr-wait', 'wait.v1', 'Failed', 'InstallCheckFailed');
    await client.create(csv({ namespace: 'tr-wait', name: 'wait.v2', deployments: ['wait-v2'], replaces: 'wait.v1', version: '2.0.0' }));
    const waiting = await waitForPhase(client, 'tr-wait', 'wait.v2', 'Pending', 'RequirementsUnknown');
    await sleep(600);
    const still = await getCsv(client, 'tr-wait', 'wait.v2');
    expect(still?.status).toMatchObject({ phase: 'Pending', reason: 'RequirementsUnknown', message: 'requirements not yet checked' });
    expect(entries(still!)).toEqual(entries(waiting));
    expect((await getCsv(client, 'tr-wait', 'wait.v1'))?.status?.phase).toBe('Failed');
    expect(await client.find({ ...Kinds.deployment, namespace: 'tr-wait', name: 'wait-v2' })).toBeUndefined();

    // The old operator recovers: it is Succeeded, then Replacing, and the new one goes on.
    server.recoverDeployment('tr-wait', 'wait-v1');
    await waitForPhase(client, 'tr-wait', 'wait.v2', 'Succeeded');
    await eventually(async () => !(await getCsv(client, 'tr-wait', 'wait.v1')), { message: 'old CSV deleted' });
  });
});

describe('Installing (more rows)', () => {
  it('→ Pending/NeedsReinstall "calculated deployment install is bad" when a webhook names a deployment the strategy lacks', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(client, 'tr-calc');
    const manifest = csv({ namespace: 'tr-calc', name: 'calc.v1' });
    const webhook = (deploymentName: string) => [
      { type: 'ValidatingAdmissionWebhook', generateName: 'calc.example.com', deploymentName, sideEffects: 'None', admissionReviewVersions: ['v1'] },
    ];
    (manifest.spec as Record<string, unknown>).webhookdefinitions = webhook('operator');
    await client.create(manifest);
    const history = await historyUntil(client, 'tr-calc', 'calc.v1', (current) =>
      entries(current).includes('Pending/NeedsReinstall/calculated deployment install is bad'),
    );
    expect(history).toContain('Installing/InstallSucceeded/waiting for install components to report healthy');
    expect((await getCsv(client, 'tr-calc', 'calc.v1'))?.status?.phase).not.toBe('Succeeded');
    await client.patch({ ...Kinds.clusterServiceVersion, namespace: 'tr-calc', name: 'calc.v1' }, { spec: { webhookdefinitions: webhook('calc.v1-operator') } });
    await waitForPhase(client, 'tr-calc', 'calc.v1', 'Succeeded');
  });
});

describe('Succeeded (more rows)', () => {
  it('→ Failed/RequirementsNotMet when its permissions are taken away, and back once they are granted again', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(client, 'tr-perms');
    const manifest = csv({ namespace: 'tr-perms', name: 'perms.v1', serviceAccounts: ['operator'] });
    const objects = await grantPermissions(client, manifest);
    await client.create(manifest);
    await waitForPhase(client, 'tr-perms', 'perms.v1', 'Succeeded');
    const binding = objects.find((object) => object.kind === 'RoleBinding')!;
    await client.delete({ ...Kinds.roleBinding, namespace: 'tr-perms', name: binding.metadata!.name! });
    const history = await historyUntil(client, 'tr-perms', 'perms.v1', (current) => current.status?.reason === 'RequirementsNotMet' && current.status.phase === 'Pending');
    expect(history).toContain('Failed/RequirementsNotMet/requirements no longer met');
    const waiting = await getCsv(client, 'tr-perms', 'perms.v1');
    expect(waiting?.status?.requirementStatus?.find((status) => status.kind === 'ServiceAccount')).toMatchObject({
      status: 'PresentNotSatisfied',
      message: 'Policy rule not satisfied for service account',
    });
    await grantPermissions(client, manifest);
    await waitForPhase(client, 'tr-perms', 'perms.v1', 'Succeeded');
  });
});

describe('InstallReady', () => {
  it('→ Failed/InstallComponentFailed when the strategy cannot be applied, and installs once the CSV is fixed', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(harness.env.client, 'tr-install');
    // The API server rejects this Deployment name.
    await client.create(csv({ namespace: 'tr-install', name: 'broken.v1', deployments: ['Not_A_Name'] }));
    const failed = await eventually(async () => {
      const current = await getCsv(client, 'tr-install', 'broken.v1');
      return current && entries(current).some((entry) => entry.startsWith('Failed/InstallComponentFailed/install strategy failed: ')) ? current : undefined;
    }, { message: 'InstallComponentFailed' });
    expect(entries(failed).join('\n')).toContain('Not_A_Name');
    await client.patch(
      { ...Kinds.clusterServiceVersion, namespace: 'tr-install', name: 'broken.v1' },
      { spec: { install: { strategy: 'deployment', spec: { deployments: [{ name: 'fixed', spec: { replicas: 1, selector: { matchLabels: { app: 'fixed' } }, template: { metadata: { labels: { app: 'fixed' } }, spec: { containers: [{ name: 'operator', image: 'example.com/operator:v1' }] } } } }] } } } },
    );
    await waitForPhase(client, 'tr-install', 'broken.v1', 'Succeeded');
  });
});

describe('Succeeded', () => {
  it('→ Failed/RequirementsNotMet when its own CRD is deleted, → Pending/RequirementsNotMet, and back once it returns', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(harness.env.client, 'tr-crd-gone');
    await client.create(crdManifest('gizmos', 'tr.example.com', 'Gizmo'));
    await client.create(csv({ namespace: 'tr-crd-gone', name: 'gizmo.v1', ownedCrds: [{ name: 'gizmos.tr.example.com', version: 'v1', kind: 'Gizmo' }] }));
    await waitForPhase(client, 'tr-crd-gone', 'gizmo.v1', 'Succeeded');
    await client.delete({ ...Kinds.customResourceDefinition, name: 'gizmos.tr.example.com' });
    const waiting = await waitForPhase(client, 'tr-crd-gone', 'gizmo.v1', 'Pending', 'RequirementsNotMet');
    expect(entries(waiting)).toEqual(
      expect.arrayContaining(['Failed/RequirementsNotMet/requirements no longer met', 'Pending/RequirementsNotMet/requirements not met']),
    );
    expect(entries(waiting).indexOf('Failed/RequirementsNotMet/requirements no longer met')).toBeLessThan(
      entries(waiting).indexOf('Pending/RequirementsNotMet/requirements not met'),
    );
    expect(waiting.status?.requirementStatus).toContainEqual(expect.objectContaining({ name: 'gizmos.tr.example.com', status: 'NotPresent' }));
    await eventually(async () => !(await client.find({ ...Kinds.customResourceDefinition, name: 'gizmos.tr.example.com' })), { message: 'CRD deleted' });
    await client.create(crdManifest('gizmos', 'tr.example.com', 'Gizmo'));
    await waitForPhase(client, 'tr-crd-gone', 'gizmo.v1', 'Succeeded');
  });
});

describe('Failed', () => {
  it('→ Replacing/BeingReplaced with fail-forward when a replacement exists; the replacement installs and the failed CSV goes', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(harness.env.client, 'tr-failforward', { targetNamespaces: ['tr-failforward'], upgradeStrategy: UpgradeStrategies.UnsafeFailForward });
    harness.env.server.failDeployment('tr-failforward', 'ff-v1');
    await client.create(csv({ namespace: 'tr-failforward', name: 'ff.v1', deployments: ['ff-v1'] }));
    await eventually(async () => {
      const current = await getCsv(client, 'tr-failforward', 'ff.v1');
      return current?.status?.phase === 'Failed' && current.status.reason === 'InstallCheckFailed';
    }, { message: 'ff.v1 failed' });
    await client.create(csv({ namespace: 'tr-failforward', name: 'ff.v2', deployments: ['ff-v2'], replaces: 'ff.v1', version: '2.0.0' }));
    const history = await historyUntil(client, 'tr-failforward', 'ff.v1', (current) => current.status?.phase === 'Replacing' || current.status?.phase === 'Deleting');
    const replaced = await getCsv(client, 'tr-failforward', 'ff.v1');
    expect([...history, ...(replaced ? entries(replaced) : [])]).toContain(
      'Replacing/BeingReplaced/Fail Forward is enabled, allowing Failed csv to be replaced by csv: ff.v2',
    );
    await waitForPhase(client, 'tr-failforward', 'ff.v2', 'Succeeded');
    await eventually(async () => !(await getCsv(client, 'tr-failforward', 'ff.v1')), { message: 'failed CSV deleted' });
    expect(await harness.controller.registry.metrics()).toMatch(/csv_upgrade_count \d+/);
  });
});

describe('Replacing', () => {
  it('stays Replacing while its replacement is not Succeeded, and without one (a sync error)', async () => {
    const { client } = harness.env;
    await namespaceWithGroup(harness.env.client, 'tr-replacing');
    await client.create(csv({ namespace: 'tr-replacing', name: 'old.v1', deployments: ['old-v1'] }));
    await waitForPhase(client, 'tr-replacing', 'old.v1', 'Succeeded');
    // The replacement is held in Pending by the old operator's OperatorCondition.
    await client.create({
      apiVersion: 'operators.coreos.com/v2',
      kind: 'OperatorCondition',
      metadata: { namespace: 'tr-replacing', name: 'old.v1' },
      spec: { overrides: [{ type: 'Upgradeable', status: 'False', reason: 'Busy', message: 'busy', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    });
    await client.create(csv({ namespace: 'tr-replacing', name: 'old.v2', deployments: ['old-v2'], replaces: 'old.v1', version: '2.0.0' }));
    await waitForPhase(client, 'tr-replacing', 'old.v2', 'Pending', 'OperatorConditionNotUpgradeable');
    await waitForPhase(client, 'tr-replacing', 'old.v1', 'Replacing', 'BeingReplaced');

    const errors = async () => {
      const text = await harness.controller.manager.metrics.registry.metrics();
      return Number(/controller_runtime_reconcile_errors_total\{controller="csv"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await errors();
    await client.delete({ ...Kinds.clusterServiceVersion, namespace: 'tr-replacing', name: 'old.v2' });
    // "marked as replacement, but no replacement CSV found in cluster": the sync fails, the CSV stays.
    await eventually(async () => (await errors()) > before, { message: 'sync error counted' });
    expect((await getCsv(client, 'tr-replacing', 'old.v1'))?.status?.phase).toBe('Replacing');
    expect(await client.find({ ...Kinds.deployment, namespace: 'tr-replacing', name: 'old-v1' })).toBeDefined();
  });
});

describe('Events', () => {
  it('records an Event per transition: Normal with the reason and message, Warning for Failed', async () => {
    const { client } = harness.env;
    await createNamespace(client, 'tr-events');
    // The pre-checks run before the phase switch: without a group it fails before it is ever Pending.
    await client.create(csv({ namespace: 'tr-events', name: 'evented.v1' }));
    await waitForPhase(client, 'tr-events', 'evented.v1', 'Failed', 'NoOperatorGroup');
    await createOperatorGroup(client, 'tr-events', 'og');
    await waitForPhase(client, 'tr-events', 'evented.v1', 'Succeeded');
    await client.create(csv({ namespace: 'tr-events', name: 'second.v1' }));
    await waitForPhase(client, 'tr-events', 'second.v1', 'Succeeded');
    const installed = [
      ['Normal', 'AllRequirementsMet', 'all requirements found, attempting install'],
      ['Normal', 'InstallSucceeded', 'waiting for install components to report healthy'],
      ['Normal', 'InstallSucceeded', 'install strategy completed with no errors'],
    ];
    const wanted: Record<string, string[][]> = {
      'evented.v1': [
        ['Warning', 'NoOperatorGroup', 'csv in namespace with no operatorgroups'],
        ['Normal', 'RequirementsUnknown', 'InstallModes now support target namespaces'],
        ...installed,
      ],
      'second.v1': [['Normal', 'RequirementsUnknown', 'requirements not yet checked'], ...installed],
    };
    // Transitions that depend on timing: the group's status not yet written, a rollout not yet done.
    const transient = [
      ['Warning', 'NoTargetNamespaces', 'csv missing olm.targetNamespaces annotation'],
      ['Normal', 'InstallWaiting', undefined],
    ];
    for (const [name, expected] of Object.entries(wanted)) {
      let seen: Array<Array<string | undefined>> = [];
      const events = await eventually(async () => {
        const items = await listEvents(client, 'tr-events', name);
        seen = items.map((event) => [event.type, event.reason, event.message]);
        return expected.every((entry) => seen.some((item) => JSON.stringify(item) === JSON.stringify(entry))) ? items : undefined;
      }, { message: `an event per transition of ${name}` }).catch((error: Error) => {
        throw new Error(`${error.message}; events: ${JSON.stringify(seen)}`);
      });
      for (const event of events) {
        expect(event).toMatchObject({
          involvedObject: { kind: 'ClusterServiceVersion', name, namespace: 'tr-events' },
          source: { component: 'olm-operator' },
        });
      }
      // Nothing but transitions.
      const unexpected = seen.filter(
        (item) =>
          !expected.some((entry) => JSON.stringify(entry) === JSON.stringify(item)) &&
          !transient.some(([type, reason, message]) => item[0] === type && item[1] === reason && (message === undefined || item[2] === message)),
      );
      expect(unexpected).toEqual([]);
    }
  });
});
