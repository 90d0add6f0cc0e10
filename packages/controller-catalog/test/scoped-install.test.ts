import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '@olm/core';
import { createManager } from '@olm/controller-runtime';
import { createCsvController } from '@olm/controller-csv';
import { createOperatorGroupsController } from '@olm/controller-operator-groups';
import { createRbacGenerator } from '@olm/plugin-rbac';
import type { RegistryServer } from '@olm/registry';
import { Kinds, type AnyObject } from '../src/kinds.js';
import { condition, createNamespace, eventually, get, grpcCatalogSource, kubectl, kubectlBinary, list, sleep, startCluster, startController, startRegistry, subscription } from './helpers.js';

// Scoped installs (upstream's operator scoping with OperatorGroups): a group's spec.serviceAccountName makes
// OLM apply the InstallPlans of its namespace as that ServiceAccount, which the local API server authorizes
// with RBAC. Both controllers run, so CSVs install and their requirement checks see what the plan made.

const rbac = 'rbac.authorization.k8s.io/v1';
const csvName = 'acme-database.v1.2.0';
let cluster: Awaited<ReturnType<typeof startCluster>>;
let client: KubeClient;
let registry: RegistryServer;
let catalog: Awaited<ReturnType<typeof startController>>;
let stopCsvController: () => Promise<void>;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  registry = await startRegistry();
  await client.create(grpcCatalogSource('olm', 'acme-examples', registry.address));
  const csvController = createCsvController({ client, rbacGenerator: createRbacGenerator(), requeueAfterMs: 500, healthPollMs: 200 });
  const manager = createManager({ kubeconfig: cluster.server.kubeconfig, gracefulShutdownTimeoutMs: 2_000 });
  for (const reconciler of csvController.reconcilers) manager.add(reconciler);
  for (const reconciler of createOperatorGroupsController({ client, rbacGenerator: createRbacGenerator() }).reconcilers) manager.add(reconciler);
  await manager.start();
  stopCsvController = async () => {
    await manager.stop();
    csvController.close();
  };
  catalog = await startController(cluster.server, client);
});
afterAll(async () => {
  await catalog?.stop();
  await stopCsvController?.();
  await registry?.stop();
  await cluster?.stop();
});

/** The namespace, its OperatorGroup (naming `account` when given) and, unless `missing`, the account with every right inside the namespace. */
async function scopedNamespace(namespace: string, account: string | undefined, options: { missing?: boolean } = {}): Promise<void> {
  await createNamespace(client, namespace);
  if (account && !options.missing) await grantNamespace(namespace, account);
  await client.create({
    ...Kinds.operatorGroup,
    metadata: { name: namespace, namespace },
    spec: { targetNamespaces: [namespace], ...(account ? { serviceAccountName: account } : {}) },
  });
}

async function grantNamespace(namespace: string, account: string): Promise<void> {
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account, namespace } });
  await client.create({ apiVersion: rbac, kind: 'Role', metadata: { name: 'installer', namespace }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] });
  await client.create({
    apiVersion: rbac,
    kind: 'RoleBinding',
    metadata: { name: 'installer', namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'installer' },
    subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
  });
}

/** What a cluster admin grants so the account may also create the operator's cluster-wide RBAC, with kubectl as a user would. */
async function grantClusterRbac(namespace: string, account: string): Promise<void> {
  const grants = [
    { name: `${namespace}-${account}-clusterroles`, resource: 'clusterroles', verbs: ['get', 'create', 'update', 'patch', 'escalate', 'bind'] },
    { name: `${namespace}-${account}-clusterrolebindings`, resource: 'clusterrolebindings', verbs: ['get', 'create', 'update', 'patch'] },
  ];
  for (const { name, resource, verbs } of grants) {
    if (kubectlBinary) {
      await kubectl(cluster.server, ['create', 'clusterrole', name, `--verb=${verbs.join(',')}`, `--resource=${resource}.rbac.authorization.k8s.io`]);
      await kubectl(cluster.server, ['create', 'clusterrolebinding', name, `--clusterrole=${name}`, `--serviceaccount=${namespace}:${account}`]);
      continue;
    }
    await client.create({ apiVersion: rbac, kind: 'ClusterRole', metadata: { name }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: [resource], verbs }] });
    await client.create({
      apiVersion: rbac,
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
    });
  }
}

const statusOf = (object: AnyObject | undefined) => (object?.status ?? {}) as { phase?: string; message?: string; attenuatedServiceAccountRef?: Record<string, string>; plan?: Array<{ resource: { kind: string; name: string }; status: string }> };
const onlyPlan = async (namespace: string) => {
  const plans = await list(client, Kinds.installPlan, namespace);
  return plans.length === 1 ? plans[0] : undefined;
};
const deployment = (namespace: string) => get(client, { apiVersion: 'apps/v1', kind: 'Deployment' }, namespace, 'acme-database-operator');

describe('InstallPlans of a namespace whose OperatorGroup names a ServiceAccount', () => {
  it('apply every step but CRDs as the account: what it lacks keeps the plan Installing with the server\'s message, and nothing runs', async () => {
    await scopedNamespace('scoped', 'installer');
    await client.create(subscription('scoped', 'acme-database', {}));
    const waiting = await eventually(async () => {
      const plan = await onlyPlan('scoped');
      return statusOf(plan).message?.includes('forbidden') && plan;
    }, { message: 'the plan to report what the account lacks', timeoutMs: 30_000 });
    const status = statusOf(waiting);
    expect(status.phase).toBe('Installing');
    expect(status.attenuatedServiceAccountRef).toMatchObject({ kind: 'ServiceAccount', namespace: 'scoped', name: 'installer' });
    expect(status.attenuatedServiceAccountRef?.uid).toBe((await get(client, { apiVersion: 'v1', kind: 'ServiceAccount' }, 'scoped', 'installer'))?.metadata?.uid);
    const clusterRoleStep = status.plan!.find((step) => step.resource.kind === 'ClusterRole')!;
    expect(status.message).toBe(
      `retrying execution due to error: error creating clusterrole ${clusterRoleStep.resource.name}: clusterroles.rbac.authorization.k8s.io is forbidden: ` +
        'User "system:serviceaccount:scoped:installer" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
    // The steps the account may do are done (the CRD by OLM's own rights, as upstream); the cluster-wide ones are not.
    expect(Object.fromEntries(status.plan!.map((step) => [step.resource.kind, step.status]))).toMatchObject({
      ClusterServiceVersion: 'Created',
      CustomResourceDefinition: expect.stringMatching(/^(WaitingForApi|Created)$/),
      ServiceAccount: 'Created',
      Role: 'Created',
      RoleBinding: 'Created',
      ClusterRole: 'Unknown',
      ClusterRoleBinding: 'Unknown',
    });
    // Forbidden is never terminal: well past the 1 s retry timeout the plan still waits, and the operator does not run.
    await sleep(1_500);
    expect(statusOf(await onlyPlan('scoped')).phase).toBe('Installing');
    const csv = await get(client, Kinds.clusterServiceVersion, 'scoped', csvName);
    expect(statusOf(csv).phase).toBe('Pending');
    expect(await deployment('scoped')).toBeUndefined();
  });

  it('completes on its own once an admin grants the missing rights, and the operator installs', async () => {
    await grantClusterRbac('scoped', 'installer');
    const plan = await eventually(async () => {
      const current = await onlyPlan('scoped');
      return statusOf(current).phase === 'Complete' && current;
    }, { message: 'the plan to complete', timeoutMs: 30_000 });
    expect(statusOf(plan).message).toBeUndefined();
    expect(condition(plan, 'Installed')).toMatchObject({ status: 'True' });
    const clusterRole = await get(client, { apiVersion: rbac, kind: 'ClusterRole' }, undefined, statusOf(plan).plan!.find((step) => step.resource.kind === 'ClusterRole')!.resource.name);
    expect(clusterRole?.metadata?.labels).toMatchObject({ 'olm.owner': csvName, 'olm.owner.namespace': 'scoped' });
    await eventually(async () => statusOf(await get(client, Kinds.clusterServiceVersion, 'scoped', csvName)).phase === 'Succeeded', {
      message: 'the CSV to succeed',
      timeoutMs: 30_000,
    });
    expect(await deployment('scoped')).toBeDefined();
  });

  it('waits with InstallCheckFailed while the named account does not exist, then goes on once it does', async () => {
    await scopedNamespace('ghostly', undefined);
    // The group manages its namespace first; then an admin names an account nobody has made yet.
    await eventually(async () => ((await get(client, Kinds.operatorGroup, 'ghostly', 'ghostly'))?.status as { namespaces?: string[] } | undefined)?.namespaces?.length);
    await client.patch({ ...Kinds.operatorGroup, namespace: 'ghostly', name: 'ghostly' }, { spec: { serviceAccountName: 'ghost' } });
    await client.create(subscription('ghostly', 'acme-database', {}));
    const waiting = await eventually(async () => {
      const plan = await onlyPlan('ghostly');
      return condition(plan, 'Installed')?.reason === 'InstallCheckFailed' && plan;
    }, { message: 'the plan to report the missing account', timeoutMs: 30_000 });
    expect(condition(waiting, 'Installed')).toMatchObject({ status: 'False', reason: 'InstallCheckFailed', message: 'please make sure the service account exists. sa=ghost operatorgroup=ghostly/ghostly' });
    expect(statusOf(waiting).attenuatedServiceAccountRef).toBeUndefined();
    await sleep(1_500);
    expect(statusOf(await onlyPlan('ghostly')).plan!.every((step) => step.status === 'Unknown')).toBe(true);
    expect(await get(client, Kinds.clusterServiceVersion, 'ghostly', csvName)).toBeUndefined();

    await grantNamespace('ghostly', 'ghost');
    await grantClusterRbac('ghostly', 'ghost');
    const done = await eventually(async () => {
      const plan = await onlyPlan('ghostly');
      return statusOf(plan).phase === 'Complete' && plan;
    }, { message: 'the plan to complete', timeoutMs: 30_000 });
    expect(statusOf(done).attenuatedServiceAccountRef).toMatchObject({ namespace: 'ghostly', name: 'ghost' });
    expect(condition(done, 'Installed')).toMatchObject({ status: 'True' });
  });

  it("installs with OLM's own rights where no group names an account", async () => {
    await scopedNamespace('unscoped', undefined);
    await client.create(subscription('unscoped', 'acme-database', {}));
    const plan = await eventually(async () => {
      const current = await onlyPlan('unscoped');
      return statusOf(current).phase === 'Complete' && current;
    }, { message: 'the plan to complete', timeoutMs: 30_000 });
    expect(statusOf(plan).attenuatedServiceAccountRef).toBeUndefined();
  });
});

describe('a failed scoped InstallPlan (upstream triggerInstallPlanRetry)', () => {
  const csv = 'retry-demo.v1.0.0';
  const step = (kind: string, group: string, version: string, name: string, manifest: object) => ({
    resolving: csv,
    resource: { sourceName: 'acme-examples', sourceNamespace: 'olm', group, version, kind, name, manifest: JSON.stringify(manifest) },
    status: 'Unknown',
  });
  const steps = [
    step('ClusterServiceVersion', 'operators.coreos.com', 'v1alpha1', csv, {
      ...Kinds.clusterServiceVersion,
      metadata: { name: csv },
      spec: { displayName: 'Retry demo', version: '1.0.0', install: { strategy: 'deployment', spec: { deployments: [] } }, installModes: [{ type: 'OwnNamespace', supported: true }] },
    }),
    step('ConfigMap', '', 'v1', 'retry-demo-settings', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'retry-demo-settings' }, data: { mode: 'demo' } }),
  ];

  /** A plan that failed long ago, as the catalog operator leaves it; `account` makes it a scoped one. */
  async function failedPlan(namespace: string, name: string, account: string | undefined): Promise<void> {
    await client.create({ ...Kinds.installPlan, metadata: { name, namespace }, spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: [csv] } });
    const live = await get(client, Kinds.installPlan, namespace, name);
    await client.replaceStatus({
      ...live!,
      status: {
        phase: 'Failed',
        startTime: '2020-01-01T00:00:00Z',
        message: 'error creating clusterserviceversion: forbidden',
        conditions: [{ type: 'Installed', status: 'False', reason: 'InstallComponentFailed', message: 'forbidden', lastTransitionTime: '2020-01-01T00:00:00Z' }],
        catalogSources: [],
        plan: steps,
        ...(account ? { attenuatedServiceAccountRef: { kind: 'ServiceAccount', apiVersion: 'v1', namespace, name: account } } : {}),
      },
    } as AnyObject);
  }

  it('runs again once a Role, RoleBinding or ServiceAccount of its namespace changes, and completes as the account; an unscoped failed plan stays failed', async () => {
    await scopedNamespace('late-grant', 'late-installer', { missing: true });
    await failedPlan('late-grant', 'scoped-plan', 'late-installer');
    await failedPlan('late-grant', 'unscoped-plan', undefined);

    // The admin creates the account and grants it the namespace: the RBAC events give the scoped plan another chance.
    await grantNamespace('late-grant', 'late-installer');
    const done = await eventually(async () => {
      const plan = await get(client, Kinds.installPlan, 'late-grant', 'scoped-plan');
      return statusOf(plan).phase === 'Complete' && plan;
    }, { message: 'the failed scoped plan to run again and complete', timeoutMs: 30_000 });
    expect(statusOf(done).plan?.map((each) => each.status)).toEqual(['Created', 'Created']);
    expect(condition(done, 'Installed')).toMatchObject({ status: 'True' });
    const settings = await get(client, { apiVersion: 'v1', kind: 'ConfigMap' }, 'late-grant', 'retry-demo-settings');
    expect(settings?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'ClusterServiceVersion', name: csv });

    // The same events reached the unscoped plan, which upstream never retries.
    expect(statusOf(await get(client, Kinds.installPlan, 'late-grant', 'unscoped-plan')).phase).toBe('Failed');
  }, 60_000);
});
