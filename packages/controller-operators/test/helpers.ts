import type { CachedObject } from '@olm/core';
import { recordingLogger, startReconcilers, startTestCluster, subscription } from '@olm/testing';
import { createOperatorsController } from '../src/controller.js';

export { eventually, sleep, type LoggedWarning as Warning } from '@olm/testing';

/** A local API server with OLM's CRDs, and the Operator API's reconcilers running on a manager against it. */
export async function startHarness(options: { refreshIntervalMs?: number } = {}) {
  const cluster = await startTestCluster({ deploymentRolloutDelayMs: 20 });
  const { logger, warnings } = recordingLogger();
  const running = await startReconcilers({
    kubeconfig: cluster.server.kubeconfig,
    controller: (client) => createOperatorsController({ client, refreshIntervalMs: options.refreshIntervalMs ?? 200 }),
    manager: { resyncPeriodMs: 0, logger },
  });
  return {
    server: cluster.server,
    client: cluster.client,
    manager: running.manager,
    warnings,
    async stop() {
      await running.stop();
      await cluster.stop();
    },
  };
}

import { Kinds } from '@olm/api';

export { Kinds };

export function subscriptionManifest(namespace: string, name: string, packageName = name): CachedObject {
  return subscription(namespace, name, { name: packageName, source: 'catalog' });
}

export function installPlanManifest(namespace: string, name: string, csvNames: string[]): CachedObject {
  return { ...Kinds.installPlan, metadata: { namespace, name }, spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: csvNames } };
}

export function csvManifest(namespace: string, name: string, ownedCrds: string[] = []): CachedObject {
  return {
    ...Kinds.clusterServiceVersion,
    metadata: { namespace, name },
    spec: {
      displayName: name,
      version: '1.0.0',
      installModes: [{ type: 'OwnNamespace', supported: true }],
      install: { strategy: 'deployment', spec: { deployments: [] } },
      customresourcedefinitions: { owned: ownedCrds.map((crd) => ({ name: crd, version: 'v1', kind: 'Widget' })) },
    },
  };
}

export function crdManifest(group: string, kind: string): CachedObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    ...Kinds.customResourceDefinition,
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}
