import type { CachedObject } from '@olm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalOlm, type LocalOlm } from './local-olm-cluster.js';
import { runCliCaptured } from './run-cli.js';

type Json = CachedObject & Record<string, any>;

const v1alpha1 = 'operators.coreos.com/v1alpha1';
const kinds = {
  subscription: { apiVersion: v1alpha1, kind: 'Subscription' },
  installPlan: { apiVersion: v1alpha1, kind: 'InstallPlan' },
  csv: { apiVersion: v1alpha1, kind: 'ClusterServiceVersion' },
  operatorGroup: { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup' },
  crd: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
  database: { apiVersion: 'acme.example.com/v1', kind: 'Database' },
  deployment: { apiVersion: 'apps/v1', kind: 'Deployment' },
  clusterRole: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  clusterRoleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  roleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount' },
  namespace: { apiVersion: 'v1', kind: 'Namespace' },
  operator: { apiVersion: 'operators.coreos.com/v1', kind: 'Operator' },
} as const;

/**
 * `olm install`, `upgrade`, `approve`, `status -o` and `uninstall` as a user runs them, against what
 * `olm up` runs (the local API server, the packageserver and the controllers, in this process).
 */
describe('olm install, upgrade, approve and uninstall', () => {
  let olm: LocalOlm;
  const cli = (args: readonly string[]) => runCliCaptured([...args, '--kubeconfig', olm.kubeconfigPath]);
  const list = async (kind: { apiVersion: string; kind: string }, namespace?: string) =>
    (await olm.client.list<Json>(kind, namespace !== undefined ? { namespace } : {})).items;
  const csvPhase = async (namespace: string, name: string) => (await olm.client.find<Json>({ ...kinds.csv, name, namespace }))?.status?.phase as string | undefined;
  const pendingPlans = async (namespace: string) =>
    (await list(kinds.installPlan, namespace)).filter((plan) => plan.status?.phase === 'RequiresApproval' && !plan.spec?.approved);

  beforeAll(async () => {
    olm = await startLocalOlm();
  }, 120_000);
  afterAll(async () => {
    await olm?.stop();
  });

  it('refuses an unknown package, channel or version naming the close matches, before creating anything', async () => {
    const typo = await cli(['install', 'acme-databse', '-n', 'refused']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('error: unknown package "acme-databse"; did you mean acme-database?');
    const unknown = await cli(['install', 'postgres', '-n', 'refused']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown package "postgres" (the catalogs visible from namespace refused offer acme-backup, acme-database, acme-monitoring;');
    const channel = await cli(['install', 'acme-database', '-n', 'refused', '-c', 'stabel']);
    expect(channel.code).toBe(2);
    expect(channel.stderr).toContain('unknown channel "stabel" of package acme-database in olm/acme-examples; did you mean stable? (channels: fast, stable)');
    const version = await cli(['install', 'acme-database', '-n', 'refused', '--version', '1.3.0']);
    expect(version.code).toBe(2);
    expect(version.stderr).toContain('no version 1.3.0 in channel stable of package acme-database in olm/acme-examples');
    expect(version.stderr).toContain('(versions: 1.2.0, 1.1.1, 1.1.0, 1.0.0)');
    const csv = await cli(['install', 'acme-database', '-n', 'refused', '--starting-csv', 'acme-database.v1.0']);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain('no CSV acme-database.v1.0 in channel stable');
    expect(csv.stderr).toContain('did you mean acme-database.v1.0.0');
    const both = await cli(['install', 'acme-database', '-n', 'refused', '--version', '1.0.0', '--starting-csv', 'acme-database.v1.0.0']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('pass --version or --starting-csv, not both');
    // Nothing was created: no namespace, OperatorGroup or Subscription.
    expect(await olm.client.find({ ...kinds.namespace, name: 'refused' })).toBeUndefined();
    expect(await list(kinds.subscription)).toEqual([]);
    expect((await list(kinds.operatorGroup)).map((group) => `${group.metadata!.namespace}/${group.metadata!.name}`)).toEqual(['operators/global-operators']);
  });

  it('installs a version with Manual approval, approves it, shows and approves the upgrade', async () => {
    const install = await cli(['install', 'acme-database', '-n', 'team-m', '--version', '1.0.0', '--approval', 'Manual', '--no-wait', '-o', 'json']);
    expect(install.stderr).toContain('subscription team-m/acme-database created (catalog olm/acme-examples, channel stable, starting at acme-database.v1.0.0)');
    expect(install.code).toBe(0);
    expect(JSON.parse(install.stdout)).toEqual({
      namespace: 'team-m',
      package: 'acme-database',
      subscription: 'acme-database',
      catalogSource: { name: 'acme-examples', namespace: 'olm' },
      channel: 'stable',
      startingCSV: 'acme-database.v1.0.0',
      approval: 'Manual',
      checked: true,
      created: [
        { kind: 'Namespace', name: 'team-m' },
        { kind: 'OperatorGroup', name: 'team-m', namespace: 'team-m' },
        { kind: 'Subscription', name: 'acme-database', namespace: 'team-m' },
      ],
      result: 'Created',
    });

    // The first plan waits for approval: status shows it, upgrade shows it as a first install.
    await expect.poll(async () => (await pendingPlans('team-m')).length, { timeout: 30_000 }).toBe(1);
    const status = await cli(['status', '-n', 'team-m', '-o', 'yaml']);
    expect(status.code).toBe(0);
    const { parse } = await import('yaml');
    const document = parse(status.stdout) as { subscriptions: Array<Record<string, string>>; installPlansWaitingForApproval: Array<Record<string, unknown>> };
    expect(document.subscriptions).toEqual([expect.objectContaining({ namespace: 'team-m', subscription: 'acme-database', package: 'acme-database', channel: 'stable' })]);
    const [firstPlan] = await pendingPlans('team-m');
    expect(document.installPlansWaitingForApproval).toEqual([
      { namespace: 'team-m', name: firstPlan!.metadata!.name, clusterServiceVersionNames: ['acme-database.v1.0.0'], approve: `olm approve ${firstPlan!.metadata!.name} -n team-m` },
    ]);
    const text = await cli(['status', '-n', 'team-m']);
    expect(text.stdout).toContain(`  olm approve ${firstPlan!.metadata!.name} -n team-m\n  kubectl patch installplan ${firstPlan!.metadata!.name} -n team-m --type merge -p '{"spec":{"approved":true}}'\n`);

    const approve = await cli(['approve', 'acme-database', '-n', 'team-m']);
    expect(approve.stderr).toBe('');
    expect(approve.code).toBe(0);
    expect(approve.stdout).toBe(`install plan team-m/${firstPlan!.metadata!.name} approved: acme-database.v1.0.0 (first install)\n`);
    await expect.poll(() => csvPhase('team-m', 'acme-database.v1.0.0'), { timeout: 60_000 }).toBe('Succeeded');
    const again = await cli(['approve', firstPlan!.metadata!.name!, '-n', 'team-m']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`install plan team-m/${firstPlan!.metadata!.name} does not wait for approval: it is approved and its phase is Complete`);
    const nowhere = await cli(['approve', 'no-such-plan', '-n', 'team-m']);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('no install plan or subscription named "no-such-plan" in namespace team-m');

    // OLM found the upgrade to 1.1.0 and waits for its approval.
    await expect.poll(async () => (await pendingPlans('team-m')).map((plan) => plan.spec.clusterServiceVersionNames), { timeout: 60_000 }).toEqual([['acme-database.v1.1.0']]);
    const [upgradePlan] = await pendingPlans('team-m');
    const shown = await cli(['upgrade', 'acme-database', '-n', 'team-m']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`acme-database in team-m: acme-database.v1.0.0 -> acme-database.v1.1.0; install plan ${upgradePlan!.metadata!.name} waits for approval\n`);
    expect(shown.stdout).toContain('approve it with: olm upgrade acme-database -n team-m --approve');
    expect(await pendingPlans('team-m')).toHaveLength(1);

    const upgraded = await cli(['upgrade', 'acme-database', '-n', 'team-m', '--approve', '--timeout', '60000']);
    expect(upgraded.code, upgraded.stdout + upgraded.stderr).toBe(0);
    expect(upgraded.stdout).toContain(`install plan team-m/${upgradePlan!.metadata!.name} approved\n`);
    expect(upgraded.stderr.trimEnd().split('\n').at(-1)).toBe('acme-database.v1.1.0 installed in team-m: Succeeded');
    expect(await csvPhase('team-m', 'acme-database.v1.1.0')).toBe('Succeeded');
  }, 180_000);

  it('says there is nothing to approve for an Automatic subscription or an unknown package', async () => {
    const install = await cli(['install', 'acme-database', '-n', 'team-auto', '--timeout', '60000']);
    expect(install.code).toBe(0);
    const approve = await cli(['upgrade', 'acme-database', '-n', 'team-auto', '--approve']);
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain('nothing to approve: subscription team-auto/acme-database has Automatic approval: OLM installs its upgrades without asking (it is at acme-database.v1.2.0)');
    const shown = await cli(['upgrade', 'acme-database', '-n', 'team-auto']);
    expect(shown.code).toBe(0);
    const unknown = await cli(['upgrade', 'acme-databse', '-n', 'team-auto']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no subscription to package "acme-databse" in namespace team-auto; did you mean acme-database? (subscribed here: acme-database)');
    const nothing = await cli(['approve', 'acme-database', '-n', 'team-auto']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('nothing of package acme-database waits for approval in team-auto');
  }, 120_000);

  it('uninstalls after a summary, leaves nothing of the operator, and reinstalls without duplicates', async () => {
    const operand = { ...kinds.database, metadata: { name: 'orders', namespace: 'team-m' }, spec: { engine: 'postgres' } };
    await olm.client.create(operand as Json);
    for (const namespace of ['team-m', 'team-auto']) {
      const refused = await cli(['uninstall', 'acme-database', '-n', namespace]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('1 custom resource of the CRDs acme-database owns exist (Database team-m/orders): pass --delete-operand');
    }
    const noTerminal = await cli(['uninstall', 'acme-database', '-n', 'team-auto', '--delete-operand']);
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.stdout).toContain('olm uninstall acme-database -n team-auto deletes:\n');
    expect(noTerminal.stderr).toContain('refusing to delete without confirmation: stdin is not a terminal; pass --yes');
    expect(await olm.client.find({ ...kinds.subscription, name: 'acme-database', namespace: 'team-auto' })).toBeDefined();
    expect(await olm.client.find({ ...kinds.database, name: 'orders', namespace: 'team-m' })).toBeDefined();

    // Another install owns the CRD too: it stays. The OperatorGroup olm install made goes.
    const teamM = await cli(['uninstall', 'acme-database', '-n', 'team-m', '--delete-operand', '--yes']);
    expect(teamM.stderr).toBe('');
    expect(teamM.code).toBe(0);
    expect(teamM.stdout).toContain('  the custom resources (--delete-operand):\n    Database team-m/orders\n');
    expect(teamM.stdout).toContain('  the OperatorGroup olm install made for it (nothing else is subscribed here):\n    OperatorGroup team-m/team-m\n');
    expect(teamM.stdout).toMatch(/and keeps:\n {4}CustomResourceDefinition databases\.acme\.example\.com \(also owned by team-auto\/acme-database\.v1\.2\.0\)\n/);
    expect(teamM.stdout).toContain('  the Operator listing its components (the CRDs kept lose its label):\n    Operator acme-database.team-m\n');
    expect(teamM.stdout).toContain('Operator acme-database.team-m deleted\nacme-database uninstalled from team-m\n');
    // the kept CRD is no longer a component of the uninstalled operator, and stays one of the other's
    const sharedCrd = await olm.client.find<Json>({ ...kinds.crd, name: 'databases.acme.example.com' });
    expect(Object.keys(sharedCrd?.metadata?.labels ?? {}).filter((key) => key.startsWith('operators.coreos.com/'))).toEqual(['operators.coreos.com/acme-database.team-auto']);
    expect((await list(kinds.operator)).map((operator) => operator.metadata!.name)).toEqual(['acme-database.team-auto']);
    expect(await list(kinds.operatorGroup, 'team-m')).toEqual([]);
    expect(await olm.client.find({ ...kinds.database, name: 'orders', namespace: 'team-m' })).toBeUndefined();
    const teamAuto = await cli(['uninstall', 'acme-database', '-n', 'team-auto', '--yes']);
    expect(teamAuto.code).toBe(0);
    expect(teamAuto.stdout).toContain('and keeps:\n    CustomResourceDefinition databases.acme.example.com (pass --delete-crds to delete it)\n');
    expect(await list(kinds.operator)).toEqual([]);

    // Into `operators`: the global OperatorGroup, so the CSV is copied into every namespace.
    const installed = await cli(['install', 'acme-database', '-n', 'operators', '--timeout', '60000']);
    expect(installed.code, installed.stderr).toBe(0);
    await expect.poll(async () => (await list(kinds.csv)).filter((csv) => csv.metadata?.labels?.['olm.copiedFrom'] === 'operators').length, { timeout: 60_000 }).toBeGreaterThan(2);
    const csvName = 'acme-database.v1.2.0';

    const summary = await cli(['uninstall', 'acme-database', '-n', 'operators', '--delete-crds', '--yes']);
    expect(summary.stderr).toBe('');
    expect(summary.code).toBe(0);
    expect(summary.stdout).toContain('  the Subscription:\n    Subscription operators/acme-database\n');
    expect(summary.stdout).toContain(`  the ClusterServiceVersion:\n    ClusterServiceVersion operators/${csvName}\n`);
    expect(summary.stdout).toMatch(new RegExp(`with the CSV, OLM and garbage collection remove:\\n(    .*\\n)*    ClusterServiceVersion default/${csvName.replace(/\./g, '\\.')}\\n`));
    expect(summary.stdout).toMatch(/ {4}Deployment operators\/\S+\n/);
    expect(summary.stdout).toContain('  its CustomResourceDefinitions (--delete-crds):\n    CustomResourceDefinition databases.acme.example.com\n');
    // The global OperatorGroup was not made by olm install: it stays.
    expect(summary.stdout).not.toContain('OperatorGroup operators/global-operators');

    // Nothing of the operator is left, anywhere.
    const ownedBy = (object: Json) => object.metadata?.labels?.['olm.owner'] === csvName || (object.metadata?.ownerReferences ?? []).some((owner) => owner.name === csvName);
    expect(await list(kinds.subscription)).toEqual([]);
    expect((await list(kinds.csv)).map((csv) => `${csv.metadata!.namespace}/${csv.metadata!.name}`)).toEqual([]);
    expect(await list(kinds.installPlan)).toEqual([]);
    for (const kind of [kinds.deployment, kinds.serviceAccount, kinds.role, kinds.roleBinding, kinds.clusterRole, kinds.clusterRoleBinding]) {
      expect({ kind: kind.kind, left: (await list(kind)).filter(ownedBy).map((object) => object.metadata!.name) }).toEqual({ kind: kind.kind, left: [] });
    }
    expect(await olm.client.find({ ...kinds.crd, name: 'databases.acme.example.com' })).toBeUndefined();
    expect((await list(kinds.operatorGroup, 'operators')).map((group) => group.metadata!.name)).toEqual(['global-operators']);
    // the Operator goes last and is not made again: nothing labelled as its component is left
    expect(summary.stdout).toContain('Operator acme-database.operators deleted\n');
    expect(await list(kinds.operator)).toEqual([]);
    const labelled = `operators.coreos.com/acme-database.operators`;
    for (const kind of [kinds.crd, kinds.deployment, kinds.serviceAccount, kinds.role, kinds.roleBinding, kinds.clusterRole, kinds.clusterRoleBinding]) {
      expect({ kind: kind.kind, left: (await list(kind)).filter((object) => object.metadata?.labels?.[labelled] !== undefined).map((object) => object.metadata!.name) }).toEqual({ kind: kind.kind, left: [] });
    }

    // Reinstalled: it succeeds, with one of everything.
    const reinstall = await cli(['install', 'acme-database', '-n', 'operators', '--timeout', '60000']);
    expect(reinstall.code).toBe(0);
    expect(reinstall.stderr.trimEnd().split('\n').at(-1)).toBe(`${csvName} installed in operators: Succeeded`);
    expect((await list(kinds.subscription)).map((subscription) => subscription.metadata!.name)).toEqual(['acme-database']);
    expect((await list(kinds.csv, 'operators')).map((csv) => csv.metadata!.name)).toEqual([csvName]);
    expect((await list(kinds.deployment, 'operators')).filter(ownedBy)).toHaveLength(1);
    expect(await olm.client.find({ ...kinds.crd, name: 'databases.acme.example.com' })).toBeDefined();
    await expect.poll(async () => (await list(kinds.operator)).map((operator) => operator.metadata!.name), { timeout: 30_000 }).toEqual(['acme-database.operators']);
  }, 240_000);
});
