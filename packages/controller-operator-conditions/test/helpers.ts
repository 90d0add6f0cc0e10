import type { CachedObject } from '@olm/core';
import { startReconcilers, startTestCluster } from '@olm/testing';
import { createOperatorConditionsController } from '../src/controller.js';

export { eventually, sleep } from '@olm/testing';

/** A local API server with OLM's CRDs, and the two OperatorCondition reconcilers running on a manager against it. */
export async function startHarness() {
  const cluster = await startTestCluster();
  const running = await startReconcilers({
    kubeconfig: cluster.server.kubeconfig,
    controller: (client) => createOperatorConditionsController({ client }),
    manager: { resyncPeriodMs: 0 },
  });
  return {
    server: cluster.server,
    client: cluster.client,
    manager: running.manager,
    async stop() {
      await running.stop();
      await cluster.stop();
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
