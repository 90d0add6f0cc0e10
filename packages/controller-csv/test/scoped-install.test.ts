import type { CachedObject } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import { csv, eventually, getCsv, namespaceWithGroup, sleep, useController, waitForPhase } from './helpers.js';

// Scoped installs: the deployment strategy runs as the ServiceAccount the namespace's OperatorGroup names
// (upstream's attenuated client), so the RBAC-enforcing local API server decides what it may create.

const harness = useController();
const rbac = 'rbac.authorization.k8s.io/v1';

async function grant(namespace: string, name: string, account: string, verbs: string[]): Promise<void> {
  const client = harness.env.client;
  await client.create({ apiVersion: rbac, kind: 'Role', metadata: { name, namespace }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs }] });
  await client.create({
    apiVersion: rbac,
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
  });
}

const deploymentOf = (namespace: string, name: string) => harness.env.client.find({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name });

describe('the deployment install strategy of a namespace whose OperatorGroup names a ServiceAccount', () => {
  it("fails InstallComponentFailedNoRetry with the server's message naming the account, then installs once RBAC grants it", async () => {
    const client = harness.env.client;
    await namespaceWithGroup(client, 'deployer');
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: 'deployer' } });
    // It may read Deployments, not create them.
    await grant('deployer', 'read-deployments', 'installer', ['get', 'list', 'watch']);
    await client.patch({ ...Kinds.operatorGroup, namespace: 'deployer', name: 'og' }, { spec: { serviceAccountName: 'installer' } });
    await eventually(async () => ((await client.get<CachedObject & { status?: { serviceAccountRef?: { name?: string } } }>({ ...Kinds.operatorGroup, namespace: 'deployer', name: 'og' })).status?.serviceAccountRef?.name === 'installer'));

    await client.create(csv({ namespace: 'deployer', name: 'scoped.v1' }));
    const failed = await waitForPhase(client, 'deployer', 'scoped.v1', 'Failed', 'InstallComponentFailedNoRetry');
    expect(failed.status?.message).toBe(
      'install strategy failed: install strategy failed: deployments.apps is forbidden: User "system:serviceaccount:deployer:installer" ' +
        'cannot create resource "deployments" in API group "apps" in the namespace "deployer"',
    );
    expect(await deploymentOf('deployer', 'scoped.v1-operator')).toBeUndefined();
    // No retry loop: the CSV is left alone until something changes.
    const resourceVersion = failed.metadata?.resourceVersion;
    await sleep(600);
    expect((await getCsv(client, 'deployer', 'scoped.v1'))?.metadata?.resourceVersion).toBe(resourceVersion);

    // An admin grants the rest: the RBAC change gives the CSV another chance (DetectedClusterChange), and it installs.
    await grant('deployer', 'write-deployments', 'installer', ['create', 'update', 'patch', 'delete']);
    await waitForPhase(client, 'deployer', 'scoped.v1', 'Succeeded');
    const history = (await getCsv(client, 'deployer', 'scoped.v1'))?.status?.conditions ?? [];
    expect(history.map((entry) => entry.reason)).toContain('DetectedClusterChange');
    expect(await deploymentOf('deployer', 'scoped.v1-operator')).toBeDefined();
  });

  it('waits in InstallReady, writing nothing, while the named account does not exist; installs once it does', async () => {
    const client = harness.env.client;
    await namespaceWithGroup(client, 'absent');
    await client.patch({ ...Kinds.operatorGroup, namespace: 'absent', name: 'og' }, { spec: { serviceAccountName: 'nobody' } });
    await eventually(async () => {
      const og = await client.get<CachedObject & { status?: { conditions?: Array<{ reason?: string }> } }>({ ...Kinds.operatorGroup, namespace: 'absent', name: 'og' });
      return og.status?.conditions?.some((condition) => condition.reason === 'ServiceAccountNotFound');
    });
    await client.create(csv({ namespace: 'absent', name: 'waiting.v1' }));
    const ready = await waitForPhase(client, 'absent', 'waiting.v1', 'InstallReady', 'AllRequirementsMet');
    await sleep(600);
    expect((await getCsv(client, 'absent', 'waiting.v1'))?.metadata?.resourceVersion).toBe(ready.metadata?.resourceVersion);
    expect(await deploymentOf('absent', 'waiting.v1-operator')).toBeUndefined();

    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody', namespace: 'absent' } });
    await grant('absent', 'deployments', 'nobody', ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']);
    await waitForPhase(client, 'absent', 'waiting.v1', 'Succeeded');
    expect(await deploymentOf('absent', 'waiting.v1-operator')).toBeDefined();
  });
});
