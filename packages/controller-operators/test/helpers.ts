import type { CachedObject } from '@olm/core';
import { kubeconfigFor, recordingLogger, startReconcilers, startTestCluster, subscription, type ServedRequest } from '@olm/testing';
import { createOperatorsController } from '../src/controller.js';

export { eventually, sleep, type LoggedWarning as Warning } from '@olm/testing';

/** The user OLM's reconcilers act as here, so that their requests can be told from the test's own. */
export const olmUser = 'olm-operator';

/**
 * A local API server with OLM's CRDs, and the Operator API's reconcilers running on a manager against
 * it as `olmUser`; `served` holds every request the server answered.
 */
export async function startHarness(options: { resyncPeriodMs?: number } = {}) {
  const served: ServedRequest[] = [];
  const token = 'olm-operator-token';
  const cluster = await startTestCluster({ deploymentRolloutDelayMs: 20, users: [{ token, name: olmUser, groups: ['system:masters'] }], onRequest: (request) => served.push(request) });
  const { logger, warnings } = recordingLogger();
  const running = await startReconcilers({
    kubeconfig: kubeconfigFor(cluster.server, token),
    controller: (client) => createOperatorsController({ client }),
    manager: { resyncPeriodMs: options.resyncPeriodMs ?? 0, logger },
  });
  return {
    server: cluster.server,
    client: cluster.client,
    manager: running.manager,
    warnings,
    served,
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
