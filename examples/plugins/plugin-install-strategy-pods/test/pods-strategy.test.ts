import { controllerCsvPlugin } from '@olm/controller-csv';
import { controllerOperatorGroupsPlugin } from '@olm/controller-operator-groups';
import { createControllerRuntimePlugin, KubeClient } from '@olm/controller-runtime';
import { boot, type CachedObject, type Kernel, kubeClient, provision } from '@olm/core';
import { rbacPlugin } from '@olm/plugin-rbac';
import { createNamespace, eventually, operatorGroup, startTestCluster, type TestCluster } from '@olm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPodInstallStrategyPlugin, templateHashAnnotation } from '../src/index.js';

type Json = CachedObject & Record<string, any>;

const csvKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' } as const;
const podKind = { apiVersion: 'v1', kind: 'Pod' } as const;

/** A CSV whose strategy (`strategy`) lists one workload, `<name>-operator`. */
function csv(namespace: string, name: string, strategy: string, image = 'example.com/operator:v1'): Json {
  const workload = `${name}-operator`;
  return {
    ...csvKind,
    metadata: { name, namespace },
    spec: {
      displayName: name,
      version: '1.0.0',
      installModes: [{ type: 'OwnNamespace', supported: true }, { type: 'SingleNamespace', supported: true }],
      install: {
        strategy,
        spec: {
          deployments: [
            {
              name: workload,
              spec: { selector: { matchLabels: { app: workload } }, template: { metadata: { labels: { app: workload } }, spec: { containers: [{ name: 'operator', image }] } } },
            },
          ],
        },
      },
    },
  };
}

/**
 * A distribution whose only install strategy comes from outside @olm/controller-csv: the CSV controller
 * (with the OperatorGroup controller and the RBAC generator it needs) and this package's plugin, on the
 * embedded API server, without @olm/controller-csv's `deploymentInstallStrategyPlugin`. The CSV controller
 * reaches strategies only through the `installStrategies` point, so a `pods` CSV installs and succeeds,
 * and a `deployment` CSV finds no strategy.
 */
describe('an install strategy from one plugin, and no built-in one', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let kernel: Kernel;

  beforeAll(async () => {
    cluster = await startTestCluster();
    client = new KubeClient({ kubeconfig: cluster.server.kubeconfig });
    kernel = await boot({
      plugins: [
        createControllerRuntimePlugin({ leaderElection: false }),
        controllerCsvPlugin,
        controllerOperatorGroupsPlugin,
        rbacPlugin,
        createPodInstallStrategyPlugin({ maxPods: 2 }),
      ],
      provide: [provision(kubeClient, client)],
    });
  }, 60_000);

  afterAll(async () => {
    await kernel?.stop();
    client?.close();
    await cluster?.stop();
  });

  const phaseOf = async (namespace: string, name: string) => (await cluster.client.find<Json>({ ...csvKind, namespace, name }))?.status;

  it('installs a CSV naming the strategy as bare Pods owned by it, and it succeeds once they run', async () => {
    const admin = cluster.client;
    await createNamespace(admin, 'pods-only');
    await admin.create(operatorGroup('pods-only', 'group'));
    await admin.create(csv('pods-only', 'op.v1', 'pods'));

    const pod = await eventually(() => admin.find<Json>({ ...podKind, namespace: 'pods-only', name: 'op.v1-operator' }), { timeoutMs: 30_000 });
    expect(pod.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: 'ClusterServiceVersion', name: 'op.v1', controller: false })]);
    expect(pod.metadata?.annotations?.[templateHashAnnotation]).toMatch(/^[0-9a-f]{64}$/);
    expect(pod.spec.containers[0].image).toBe('example.com/operator:v1');
    await eventually(async () => (await phaseOf('pods-only', 'op.v1'))?.phase === 'Installing', { timeoutMs: 30_000 });

    // The embedded API server runs no kubelet: the test says the Pod runs.
    await admin.patch({ ...podKind, namespace: 'pods-only', name: 'op.v1-operator' }, { status: { phase: 'Running' } }, { type: 'merge', subresource: 'status' });
    const status = await eventually(async () => {
      const current = await phaseOf('pods-only', 'op.v1');
      return current?.phase === 'Succeeded' ? current : undefined;
    }, { timeoutMs: 30_000 });
    expect(status).toMatchObject({ reason: 'InstallSucceeded', message: 'install strategy completed with no errors' });
    // No Deployment: nothing but the plugin's strategy ran.
    expect((await admin.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: 'pods-only' })).items).toEqual([]);
  });

  it('fails a CSV whose strategy lists more Pods than the plugin allows, naming the limit and its option', async () => {
    const admin = cluster.client;
    await createNamespace(admin, 'pods-many');
    await admin.create(operatorGroup('pods-many', 'group'));
    const many = csv('pods-many', 'many.v1', 'pods');
    const [entry] = many.spec.install.spec.deployments;
    many.spec.install.spec.deployments = ['a', 'b', 'c'].map((suffix) => ({ ...entry, name: `many-${suffix}` }));
    await admin.create(many);
    const status = await eventually(async () => {
      const current = await phaseOf('pods-many', 'many.v1');
      return current?.phase === 'Failed' ? current : undefined;
    }, { timeoutMs: 30_000 });
    expect(status).toMatchObject({
      reason: 'InstallComponentFailedNoRetry',
      message: 'install strategy failed: install strategy "pods": CSV pods-many/many.v1 lists 3 pods, more than maxPods 2 (createPodInstallStrategyPlugin({ maxPods }))',
    });
    expect((await admin.list(podKind, { namespace: 'pods-many' })).items).toEqual([]);
  });

  it('has no `deployment` strategy unless a plugin provides it', async () => {
    const admin = cluster.client;
    await createNamespace(admin, 'pods-deployment');
    await admin.create(operatorGroup('pods-deployment', 'group'));
    await admin.create(csv('pods-deployment', 'deploy.v1', 'deployment'));
    const status = await eventually(async () => {
      const current = await phaseOf('pods-deployment', 'deploy.v1');
      return current?.phase === 'Failed' ? current : undefined;
    }, { timeoutMs: 30_000 });
    expect(status).toMatchObject({ reason: 'InvalidInstallStrategy', message: 'install strategy invalid: unrecognized install strategy' });
  });
});
