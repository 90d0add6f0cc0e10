import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crdManifest, csvManifest, eventually, installPlanManifest, Kinds, sleep, startHarness, subscriptionManifest } from './helpers.js';

type Json = Record<string, any>;
let harness: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.stop();
});

const find = async (kind: { apiVersion: string; kind: string }, name: string, namespace?: string): Promise<Json | undefined> =>
  harness.client.find({ ...kind, name, ...(namespace ? { namespace } : {}) });

const time = '2026-01-01T00:00:00Z';

/**
 * What OLM leaves behind installing package `pkg` in `namespace`, made by hand (no catalog or CSV
 * controller runs here): a Subscription pointing at its CSV and InstallPlan, and what the CSV owns,
 * by owner reference or by OLM's owner labels. Also an unrelated Deployment.
 */
async function installed(namespace: string, pkg: string) {
  const { client } = harness;
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const crd = await client.create(crdManifest(`${namespace}.example.com`, 'Widget'));
  const csv = await client.create(csvManifest(namespace, `${pkg}.v1`, [crd.metadata!.name!]));
  await client.replaceStatus({ ...csv, status: { phase: 'Succeeded', reason: 'InstallSucceeded', message: 'install strategy completed with no errors', lastUpdateTime: time, lastTransitionTime: time } });
  const ownerReferences = [{ apiVersion: Kinds.clusterServiceVersion.apiVersion, kind: Kinds.clusterServiceVersion.kind, name: csv.metadata!.name!, uid: csv.metadata!.uid!, controller: false, blockOwnerDeletion: false }];
  const ownerLabels = { 'olm.owner': `${pkg}.v1`, 'olm.owner.namespace': namespace, 'olm.owner.kind': 'ClusterServiceVersion' };
  const managed = { 'olm.managed': 'true' };
  const template = { metadata: { labels: { app: pkg } }, spec: { containers: [{ name: 'manager', image: 'example.com/manager:v1' }] } };
  await client.create({ ...Kinds.deployment, metadata: { namespace, name: `${pkg}-operator`, labels: { ...ownerLabels, ...managed }, ownerReferences }, spec: { selector: { matchLabels: { app: pkg } }, template } });
  await client.create({ ...Kinds.deployment, metadata: { namespace, name: 'unrelated' }, spec: { selector: { matchLabels: { app: 'unrelated' } }, template: { ...template, metadata: { labels: { app: 'unrelated' } } } } });
  await client.create({ ...Kinds.serviceAccount, metadata: { namespace, name: pkg, ownerReferences } });
  const rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
  await client.create({ ...Kinds.role, metadata: { namespace, name: `${pkg}-role`, ownerReferences }, rules });
  await client.create({ ...Kinds.roleBinding, metadata: { namespace, name: `${pkg}-binding`, labels: ownerLabels }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${pkg}-role` }, subjects: [{ kind: 'ServiceAccount', name: pkg, namespace }] });
  await client.create({ ...Kinds.clusterRole, metadata: { name: `${namespace}-${pkg}`, labels: ownerLabels }, rules });
  await client.create({ ...Kinds.clusterRoleBinding, metadata: { name: `${namespace}-${pkg}`, labels: ownerLabels }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${namespace}-${pkg}` }, subjects: [{ kind: 'ServiceAccount', name: pkg, namespace }] });
  await client.create({ ...Kinds.secret, metadata: { namespace, name: `${pkg}-cert`, labels: managed, ownerReferences }, data: {} });
  await client.create({ ...Kinds.configMap, metadata: { namespace, name: `${pkg}-config`, labels: managed, ownerReferences }, data: { a: 'b' } });
  await client.create({ ...Kinds.service, metadata: { namespace, name: `${pkg}-service`, labels: managed, ownerReferences }, spec: { ports: [{ port: 443 }], selector: { app: pkg } } });
  await client.create({ ...Kinds.validatingWebhookConfiguration, metadata: { name: `${namespace}-${pkg}`, labels: ownerLabels }, webhooks: [] });
  await client.create({ ...Kinds.operatorCondition, metadata: { namespace, name: `${pkg}.v1`, ownerReferences }, spec: { deployments: [`${pkg}-operator`], serviceAccounts: [pkg] } });
  await client.create(installPlanManifest(namespace, 'install-1', [`${pkg}.v1`]));
  const subscription = await client.create(subscriptionManifest(namespace, pkg));
  await client.replaceStatus({
    ...subscription,
    status: { installedCSV: `${pkg}.v1`, currentCSV: `${pkg}.v1`, state: 'AtLatestKnown', lastUpdated: time, installPlanRef: { apiVersion: Kinds.installPlan.apiVersion, kind: 'InstallPlan', namespace, name: 'install-1' } },
  });
  return { crd: crd.metadata!.name! };
}

const refsOf = (operator: Json) => ((operator.status?.components?.refs ?? []) as Json[]).map((ref) => `${ref.kind}/${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`);

describe('the Operator API', () => {
  it('makes an Operator <package>.<namespace> for a Subscription and lists, with their conditions, what it installed', async () => {
    const { crd } = await installed('op-basic', 'db');
    const expected = [
      'Subscription/op-basic/db',
      'InstallPlan/op-basic/install-1',
      'ClusterServiceVersion/op-basic/db.v1',
      'OperatorCondition/op-basic/db.v1',
      `CustomResourceDefinition/${crd}`,
      'Deployment/op-basic/db-operator',
      'ServiceAccount/op-basic/db',
      'Role/op-basic/db-role',
      'RoleBinding/op-basic/db-binding',
      'ClusterRole/op-basic-db',
      'ClusterRoleBinding/op-basic-db',
      'Service/op-basic/db-service',
      'ConfigMap/op-basic/db-config',
      'Secret/op-basic/db-cert',
      'ValidatingWebhookConfiguration/op-basic-db',
    ];
    const operator = await eventually(async () => {
      const current = await find(Kinds.operator, 'db.op-basic');
      return current && refsOf(current).length === expected.length ? current : undefined;
    }, { message: 'Operator with every component' });
    expect(refsOf(operator)).toEqual(expected);
    expect(operator.status.components.labelSelector).toEqual({ matchExpressions: [{ key: 'operators.coreos.com/db.op-basic', operator: 'Exists' }] });
    const ref = (kind: string) => (operator.status.components.refs as Json[]).find((each) => each.kind === kind)!;
    expect(ref('ClusterServiceVersion')).toEqual({
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'ClusterServiceVersion',
      namespace: 'op-basic',
      name: 'db.v1',
      conditions: [{ type: 'Succeeded', status: 'True', reason: 'InstallSucceeded', message: 'install strategy completed with no errors', lastUpdateTime: time, lastTransitionTime: time }],
    });
    expect((ref('CustomResourceDefinition').conditions as Json[]).map((condition) => `${condition.type}=${condition.status}`)).toContain('Established=True');
    expect(ref('ClusterRole')).toEqual({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'op-basic-db' });
    // The labels are on the objects themselves, so `kubectl get -l` finds them too.
    expect((await find(Kinds.deployment, 'db-operator', 'op-basic'))!.metadata.labels).toHaveProperty(['operators.coreos.com/db.op-basic'], '');
    expect((await find(Kinds.deployment, 'unrelated', 'op-basic'))!.metadata.labels ?? {}).not.toHaveProperty(['operators.coreos.com/db.op-basic']);
    const deployment = await eventually(async () => {
      const current = (operator.status.components.refs as Json[]).find((each) => each.kind === 'Deployment');
      return current?.conditions ? current : (await find(Kinds.operator, 'db.op-basic'))!.status.components.refs.find((each: Json) => each.kind === 'Deployment' && each.conditions);
    }, { message: 'Deployment conditions' });
    expect((deployment.conditions as Json[]).map((condition) => condition.type)).toContain('Available');
  });

  it('writes the status only when it changes, although it keeps looking', async () => {
    await eventually(() => find(Kinds.operator, 'db.op-basic'), { message: 'Operator' });
    await sleep(500);
    const before = (await find(Kinds.operator, 'db.op-basic'))!.metadata.resourceVersion;
    await sleep(1000); // five refreshes
    expect((await find(Kinds.operator, 'db.op-basic'))!.metadata.resourceVersion).toBe(before);
  });

  it('follows its components: new conditions, a new InstallPlan instead of the old one, a component removed', async () => {
    const { client } = harness;
    const csv = (await find(Kinds.clusterServiceVersion, 'db.v1', 'op-basic'))!;
    await client.replaceStatus({ ...csv, status: { ...csv.status, phase: 'Failed', reason: 'ComponentUnhealthy', message: 'installing: waiting for deployment db-operator to become ready' } });
    await eventually(async () => {
      const refs = ((await find(Kinds.operator, 'db.op-basic'))!.status.components.refs ?? []) as Json[];
      return refs.find((ref) => ref.kind === 'ClusterServiceVersion')?.conditions?.[0]?.type === 'Failed';
    }, { message: 'CSV condition follows' });

    await client.create(installPlanManifest('op-basic', 'install-2', ['db.v1']));
    const subscription = (await find(Kinds.subscription, 'db', 'op-basic'))!;
    await client.replaceStatus({ ...subscription, status: { ...subscription.status, installPlanRef: { ...subscription.status.installPlanRef, name: 'install-2' } } });
    await client.delete({ ...Kinds.secret, namespace: 'op-basic', name: 'db-cert' });
    const operator = await eventually(async () => {
      const current = (await find(Kinds.operator, 'db.op-basic'))!;
      const refs = refsOf(current);
      return refs.includes('InstallPlan/op-basic/install-2') && !refs.includes('InstallPlan/op-basic/install-1') && !refs.includes('Secret/op-basic/db-cert') ? current : undefined;
    }, { message: 'InstallPlan replaced, Secret gone' });
    expect(refsOf(operator).filter((ref) => ref.startsWith('InstallPlan/'))).toEqual(['InstallPlan/op-basic/install-2']);
    expect((await find(Kinds.installPlan, 'install-1', 'op-basic'))!.metadata.labels ?? {}).not.toHaveProperty(['operators.coreos.com/db.op-basic']);
  });

  it('makes the Operator again when it is deleted while its components exist', async () => {
    const first = (await find(Kinds.operator, 'db.op-basic'))!;
    await harness.client.delete({ ...Kinds.operator, name: 'db.op-basic' });
    const again = await eventually(async () => {
      const current = await find(Kinds.operator, 'db.op-basic');
      return current && current.metadata.uid !== first.metadata.uid && refsOf(current).includes('Subscription/op-basic/db') ? current : undefined;
    }, { message: 'Operator recreated' });
    expect(refsOf(again)).toContain('ClusterServiceVersion/op-basic/db.v1');
  });

  it('leaves a Subscription whose package cannot name an Operator alone, saying why, and keeps working', async () => {
    const { client } = harness;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'op-bad' } });
    await client.create(subscriptionManifest('op-bad', 'bad', 'Not_A_Package'));
    await eventually(() => harness.warnings.find((warning) => warning.message === 'subscription not adopted into an Operator'), { message: 'warning' });
    const warning = harness.warnings.find((each) => each.message === 'subscription not adopted into an Operator')!;
    expect(warning.fields).toMatchObject({ subscription: 'op-bad/bad', problem: expect.stringContaining('"Not_A_Package.op-bad" cannot name an Operator') });
    expect((await find(Kinds.subscription, 'bad', 'op-bad'))!.metadata.labels ?? {}).toEqual({});
    // Another Subscription is still adopted.
    await client.create(subscriptionManifest('op-bad', 'good', 'good'));
    await eventually(() => find(Kinds.operator, 'good.op-bad'), { message: 'the other Operator' });
  });
});
