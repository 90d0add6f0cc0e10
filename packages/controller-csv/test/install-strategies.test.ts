import type { CachedObject, InstallStrategy } from '@olm/core';
import { createDeploymentInstallStrategy } from '../src/install/deployment/deployment-install.js';
import { describe, expect, it } from 'vitest';
import { Kinds } from '../src/kinds.js';
import { createNamespace, createOperatorGroup, csv, getCsv, groupSynced, historyUntil, namespaceWithGroup, sleep, useController, waitForPhase, type CsvObject } from './helpers.js';

/**
 * Install strategies come from the `installStrategies` extension point, keyed by `spec.install.strategy`.
 * A second strategy here (`configmap`: the operator is "installed" as a ConfigMap) drives the lifecycle
 * like the built-in `deployment` one, and can fail in ways the deployment strategy rarely does.
 */

type Client = ReturnType<typeof clientOf>;
const clientOf = () => harness.env.client;

/** Namespaces whose install fails unrecoverably (as upstream's InvalidStrategy, Timeout, … errors). */
const broken = new Set<string>();

const configMapStrategy: InstallStrategy = {
  strategy: 'configmap',
  async install({ csv: target }) {
    if (broken.has(target.metadata.namespace)) throw Object.assign(new Error('the cluster refuses this operator'), { unrecoverable: true });
    const client: Client = clientOf();
    const reference = { apiVersion: 'v1', kind: 'ConfigMap', namespace: target.metadata.namespace, name: `${target.metadata.name}-installed` };
    if (!(await client.find(reference))) {
      await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: reference.name, namespace: reference.namespace }, data: { by: 'configmap' } } as CachedObject);
    }
  },
  async checkHealth({ csv: target }) {
    const found = await clientOf().find({ apiVersion: 'v1', kind: 'ConfigMap', namespace: target.metadata.namespace, name: `${target.metadata.name}-installed` });
    return found ? { healthy: true } : { healthy: false, reason: 'ComponentMissing', message: `missing configmap ${target.metadata.name}-installed` };
  },
};

// The built-in `deployment` strategy next to the test's `configmap` one.
const strategies = new Map<string, InstallStrategy>();
const harness = useController({}, { installStrategies: strategies });
const withDeployment = () => {
  strategies.set('deployment', createDeploymentInstallStrategy());
  strategies.set('configmap', configMapStrategy);
};

/** The CSV's resourceVersion: unchanged means nothing at all was written to it. */
const revision = (object: CsvObject | undefined) => object?.metadata?.resourceVersion;

const configMapCsv = (namespace: string, name: string) => csv({ namespace, name, strategy: 'configmap', deployments: [] });

describe('install strategies from the extension point', () => {
  it('installs, checks and reinstalls through the strategy the CSV names, next to the deployment strategy', async () => {
    withDeployment();
    const { client } = harness.env;
    await namespaceWithGroup(client, 'is-configmap');
    await client.create(configMapCsv('is-configmap', 'cm.v1'));
    await client.create(csv({ namespace: 'is-configmap', name: 'deploy.v1' }));
    await waitForPhase(client, 'is-configmap', 'cm.v1', 'Succeeded');
    await waitForPhase(client, 'is-configmap', 'deploy.v1', 'Succeeded');
    expect(await client.find({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'is-configmap', name: 'cm.v1-installed' })).toBeDefined();
    expect(await client.find({ ...Kinds.deployment, namespace: 'is-configmap', name: 'cm.v1-operator' })).toBeUndefined();
    expect(await client.find({ ...Kinds.deployment, namespace: 'is-configmap', name: 'deploy.v1-operator' })).toBeDefined();

    // Its health is the strategy's: the ConfigMap goes, the CSV reinstalls it.
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'is-configmap', name: 'cm.v1-installed' });
    // ConfigMaps are not watched (the controller only watches Deployments): the next sync of the CSV, here
    // brought by a label, or the manager's resync, notices.
    await client.patch({ ...Kinds.clusterServiceVersion, namespace: 'is-configmap', name: 'cm.v1' }, { metadata: { labels: { poke: 'yes' } } });
    const history = await historyUntil(client, 'is-configmap', 'cm.v1', (current) =>
      current.status?.phase === 'Succeeded' && (current.status.conditions ?? []).some((condition) => condition.reason === 'ComponentUnhealthy'),
    );
    expect(history).toContain('Failed/ComponentUnhealthy/installing: missing configmap cm.v1-installed');
    expect(await client.find({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'is-configmap', name: 'cm.v1-installed' })).toBeDefined();
  });

  it('→ Failed/InstallComponentFailedNoRetry on an unrecoverable install error, left alone until RBAC changes, then Pending/DetectedClusterChange', async () => {
    withDeployment();
    const { client } = harness.env;
    await namespaceWithGroup(client, 'is-noretry');
    broken.add('is-noretry');
    await client.create(configMapCsv('is-noretry', 'stuck.v1'));
    const failed = await waitForPhase(client, 'is-noretry', 'stuck.v1', 'Failed', 'InstallComponentFailedNoRetry');
    expect(failed.status?.message).toBe('install strategy failed: the cluster refuses this operator');
    // Not retried: nothing changes while the cluster does not.
    broken.delete('is-noretry');
    await sleep(600);
    const still = await getCsv(client, 'is-noretry', 'stuck.v1');
    expect(still?.status).toMatchObject({ phase: 'Failed', reason: 'InstallComponentFailedNoRetry' });
    expect(revision(still)).toBe(revision(failed));

    // An RBAC object changes in its namespace: upstream resets the CSV to Pending, and it installs.
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'unrelated', namespace: 'is-noretry' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    } as CachedObject);
    const history = await historyUntil(client, 'is-noretry', 'stuck.v1', (current) => current.status?.phase === 'Succeeded');
    expect(history).toContain('Pending/DetectedClusterChange/Cluster resources changed state');
  });

  it('resets a CSV failed without retry when its group\'s service account reference changes', async () => {
    withDeployment();
    const { client } = harness.env;
    await createNamespace(client, 'is-sa');
    for (const name of ['first', 'second']) await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'is-sa' } });
    await createOperatorGroup(client, 'is-sa', 'og', { targetNamespaces: ['is-sa'], serviceAccountName: 'first' });
    await groupSynced(client, 'is-sa', 'og');
    broken.add('is-sa');
    await client.create(configMapCsv('is-sa', 'sa.v1'));
    const failed = await waitForPhase(client, 'is-sa', 'sa.v1', 'Failed', 'InstallComponentFailedNoRetry');
    broken.delete('is-sa');
    await sleep(600);
    expect(revision(await getCsv(client, 'is-sa', 'sa.v1'))).toBe(revision(failed));

    // Only the group changes (no RBAC, no ServiceAccount): its reference now names another account.
    await client.patch({ ...Kinds.operatorGroup, namespace: 'is-sa', name: 'og' }, { spec: { serviceAccountName: 'second' } });
    const history = await historyUntil(client, 'is-sa', 'sa.v1', (current) => current.status?.phase === 'Succeeded');
    expect(history).toContain('Pending/DetectedClusterChange/Cluster resources changed state');
    const og = await client.get<CachedObject & { status?: { serviceAccountRef?: { name?: string } } }>({ ...Kinds.operatorGroup, namespace: 'is-sa', name: 'og' });
    expect(og.status?.serviceAccountRef?.name).toBe('second');
  });

  it('leaves a CSV failed without retry in another namespace alone when RBAC changes elsewhere', async () => {
    withDeployment();
    const { client } = harness.env;
    await namespaceWithGroup(client, 'is-elsewhere');
    await namespaceWithGroup(client, 'is-other');
    broken.add('is-elsewhere');
    await client.create(configMapCsv('is-elsewhere', 'alone.v1'));
    const failed = await waitForPhase(client, 'is-elsewhere', 'alone.v1', 'Failed', 'InstallComponentFailedNoRetry');
    await client.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'other', namespace: 'is-other' }, rules: [] } as CachedObject);
    await sleep(600);
    expect(revision(await getCsv(client, 'is-elsewhere', 'alone.v1'))).toBe(revision(failed));
    expect((await getCsv(client, 'is-elsewhere', 'alone.v1'))?.status?.reason).toBe('InstallComponentFailedNoRetry');
  });
});
