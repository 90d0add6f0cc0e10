import { crds } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { createManager, KubeClient, type Manager } from '@olm/controller-runtime';
import { startApiServer } from '@olm/local-apiserver';
import { createOperatorsController } from '../src/controller.js';

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

export interface Warning {
  readonly message: string;
  readonly fields?: Record<string, unknown>;
}

/** A local API server with OLM's CRDs, and the Operator API's reconcilers running on a manager against it. */
export async function startHarness(options: { refreshIntervalMs?: number } = {}) {
  const server = await startApiServer({ port: 0, deploymentRolloutDelayMs: 20 });
  const client = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 5_000 });
  for (const crd of crds) await client.create(crd as unknown as CachedObject);
  for (const kind of ['Operator', 'Subscription', 'InstallPlan', 'ClusterServiceVersion', 'OperatorCondition']) {
    const apiVersion = kind === 'Operator' ? 'operators.coreos.com/v1' : kind === 'OperatorCondition' ? 'operators.coreos.com/v2' : 'operators.coreos.com/v1alpha1';
    await eventually(() => client.resourceFor({ apiVersion, kind }), `${kind} CRD served`);
  }
  const warnings: Warning[] = [];
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields }),
    error: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields }),
    child: () => logger,
  };
  const controllerClient = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 5_000 });
  const controller = createOperatorsController({ client: controllerClient, refreshIntervalMs: options.refreshIntervalMs ?? 200 });
  const manager: Manager = createManager({ client: controllerClient, resyncPeriodMs: 0, gracefulShutdownTimeoutMs: 2_000, logger });
  for (const reconciler of controller.reconcilers) manager.add(reconciler);
  await manager.start();
  return {
    server,
    client,
    manager,
    warnings,
    async stop() {
      await manager.stop();
      controllerClient.close();
      client.close();
      await server.stop();
    },
  };
}

export const Kinds = {
  operator: { apiVersion: 'operators.coreos.com/v1', kind: 'Operator' },
  subscription: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription' },
  installPlan: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan' },
  csv: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' },
  operatorCondition: { apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition' },
  crd: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
  deployment: { apiVersion: 'apps/v1', kind: 'Deployment' },
  serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount' },
  secret: { apiVersion: 'v1', kind: 'Secret' },
  configMap: { apiVersion: 'v1', kind: 'ConfigMap' },
  service: { apiVersion: 'v1', kind: 'Service' },
  role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' },
  roleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' },
  clusterRole: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' },
  clusterRoleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
  validatingWebhook: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
} as const;

export function subscriptionManifest(namespace: string, name: string, packageName = name): CachedObject {
  return {
    ...Kinds.subscription,
    metadata: { namespace, name },
    spec: { name: packageName, source: 'catalog', sourceNamespace: 'olm', channel: 'stable' },
  };
}

export function installPlanManifest(namespace: string, name: string, csvNames: string[]): CachedObject {
  return { ...Kinds.installPlan, metadata: { namespace, name }, spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: csvNames } };
}

export function csvManifest(namespace: string, name: string, ownedCrds: string[] = []): CachedObject {
  return {
    ...Kinds.csv,
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
    ...Kinds.crd,
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}
