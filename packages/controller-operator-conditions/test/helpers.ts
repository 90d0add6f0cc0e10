import { crds } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { createManager, KubeClient, type Manager } from '@olm/controller-runtime';
import { startApiServer } from '@olm/local-apiserver';
import { createOperatorConditionsController } from '../src/controller.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually<T>(probe: () => T | Promise<T>, message = 'condition', timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value as NonNullable<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${message} not met in time${last ? `: ${String(last)}` : ''}`);
    await sleep(25);
  }
}

/** A local API server with OLM's CRDs, and the two OperatorCondition reconcilers running on a manager against it. */
export async function startHarness() {
  const server = await startApiServer({ port: 0 });
  const client = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 5_000 });
  for (const crd of crds) await client.create(crd as unknown as CachedObject);
  await eventually(() => client.resourceFor({ apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition' }), 'OperatorCondition CRD served');
  await eventually(() => client.resourceFor({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' }), 'CSV CRD served');
  const controllerClient = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 5_000 });
  const controller = createOperatorConditionsController({ client: controllerClient });
  const manager: Manager = createManager({ client: controllerClient, resyncPeriodMs: 0, gracefulShutdownTimeoutMs: 2_000 });
  for (const reconciler of controller.reconcilers) manager.add(reconciler);
  await manager.start();
  return {
    server,
    client,
    manager,
    async stop() {
      await manager.stop();
      controllerClient.close();
      client.close();
      await server.stop();
    },
  };
}

/** A CSV as a bundle ships it: deployments and the ServiceAccounts they run as. */
export function csvManifest(
  namespace: string,
  name: string,
  options: { deployments?: string[]; permissions?: string[]; clusterPermissions?: string[]; labels?: Record<string, string> } = {},
): CachedObject {
  const rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { namespace, name, ...(options.labels ? { labels: options.labels } : {}) },
    spec: {
      displayName: name,
      version: '1.0.0',
      installModes: [{ type: 'OwnNamespace', supported: true }],
      install: {
        strategy: 'deployment',
        spec: {
          deployments: (options.deployments ?? []).map((deployment) => ({
            name: deployment,
            spec: {
              selector: { matchLabels: { app: deployment } },
              template: { metadata: { labels: { app: deployment } }, spec: { containers: [{ name: 'operator', image: 'example.com/operator:v1' }] } },
            },
          })),
          permissions: (options.permissions ?? []).map((serviceAccountName) => ({ serviceAccountName, rules })),
          clusterPermissions: (options.clusterPermissions ?? []).map((serviceAccountName) => ({ serviceAccountName, rules })),
        },
      },
    },
  };
}
