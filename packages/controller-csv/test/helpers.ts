import type { CachedObject, KubeClient } from '@olm/core';
import { createOperatorGroupsController } from '@olm/controller-operator-groups';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { createOperatorNamespace, createUnlessExists, eventually, operatorGroup, startReconcilers, startTestCluster } from '@olm/testing';
import { Registry } from 'prom-client';
import { afterAll, beforeAll } from 'vitest';
import { createCsvController, type CsvController, type CsvControllerOptions } from '../src/controller.js';
import { Kinds } from '../src/kinds.js';

export { createNamespace, eventually, sleep } from '@olm/testing';

export type Server = Awaited<ReturnType<typeof startTestCluster>>['server'];

/** A local API server with the OLM CRDs installed, plus a client. */
export function startEnvironment(options: { rolloutDelayMs?: number; apiServiceCheckIntervalMs?: number; kubernetesVersion?: string } = {}) {
  return startTestCluster({
    deploymentRolloutDelayMs: options.rolloutDelayMs ?? 20,
    ...(options.apiServiceCheckIntervalMs !== undefined ? { apiServiceCheckIntervalMs: options.apiServiceCheckIntervalMs } : {}),
    ...(options.kubernetesVersion !== undefined ? { kubernetesVersion: options.kubernetesVersion } : {}),
  });
}

export type Environment = Awaited<ReturnType<typeof startEnvironment>>;

/**
 * The controller on a manager of its own, against the environment's server (or what `kubeconfig`
 * points at); `options.client` replaces the controller's client, the manager keeps its own.
 */
/** The CSV controller with the OperatorGroup reconciler CSVs need beside it (another package's, as in a distribution). */
function withOperatorGroups(controller: CsvController, client: KubeClient, options: Partial<CsvControllerOptions>): CsvController {
  const groups = createOperatorGroupsController({ client, rbacGenerator: options.rbacGenerator ?? createRbacGenerator(), ...(options.clock ? { clock: options.clock } : {}) });
  return Object.assign(Object.create(controller) as CsvController, { reconcilers: [...controller.reconcilers, ...groups.reconcilers] });
}

export async function startController(env: Environment, options: Partial<CsvControllerOptions> = {}, kubeconfig = env.server.kubeconfig) {
  const registry = new Registry();
  const running = await startReconcilers({
    kubeconfig,
    controller: (client) => withOperatorGroups(createCsvController({ client, rbacGenerator: createRbacGenerator(), metrics: registry, requeueAfterMs: 200, healthPollMs: 100, ...options }), client, options),
    manager: { resyncPeriodMs: 0 },
  });
  return { controller: running.controller, manager: running.manager, registry, stop: running.stop };
}

export async function createOperatorGroup(
  client: KubeClient,
  namespace: string,
  name: string,
  spec: Record<string, unknown> = { targetNamespaces: [namespace] },
  annotations?: Record<string, string>,
): Promise<CachedObject> {
  return client.create(operatorGroup(namespace, name, spec, annotations));
}

/** Waits until the group has `status.namespaces` (the CSV pre-checks need them). */
export async function groupSynced(client: KubeClient, namespace: string, name: string): Promise<CsvObject> {
  return eventually(async () => {
    const og = await client.get<CsvObject>({ ...Kinds.operatorGroup, namespace, name });
    return (og as { status?: { namespaces?: string[] } }).status?.namespaces ? og : undefined;
  });
}

export type CsvObject = CachedObject & {
  spec?: Record<string, unknown>;
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    lastTransitionTime?: string;
    conditions?: Array<{ phase: string; reason: string; message: string }>;
    requirementStatus?: Array<{ kind: string; name: string; status: string; message: string }>;
    namespaces?: string[];
  };
};

export const allInstallModes = [
  { type: 'OwnNamespace', supported: true },
  { type: 'SingleNamespace', supported: true },
  { type: 'MultiNamespace', supported: true },
  { type: 'AllNamespaces', supported: true },
];

export function deploymentSpec(app: string): Record<string, unknown> {
  return {
    replicas: 1,
    selector: { matchLabels: { app } },
    template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'operator', image: 'example.com/operator:v1' }] } },
  };
}

export interface CsvInput {
  readonly namespace: string;
  readonly name: string;
  readonly deployments?: readonly string[];
  readonly replaces?: string;
  readonly installModes?: ReadonlyArray<{ type: string; supported: boolean }>;
  readonly ownedCrds?: ReadonlyArray<{ name: string; version: string; kind: string }>;
  readonly requiredCrds?: ReadonlyArray<{ name: string; version: string; kind: string }>;
  readonly serviceAccounts?: readonly string[];
  readonly minKubeVersion?: string;
  readonly annotations?: Record<string, string>;
  readonly version?: string;
  /** `spec.install.strategy`; default `deployment`. */
  readonly strategy?: string;
  /** The rules of each `permissions[]` entry; default `get` on configmaps. */
  readonly rules?: ReadonlyArray<Record<string, unknown>>;
  readonly description?: string;
}

export function csv(input: CsvInput): CsvObject {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: input.name, namespace: input.namespace, ...(input.annotations ? { annotations: input.annotations } : {}) },
    spec: {
      displayName: input.name,
      ...(input.description ? { description: input.description } : {}),
      version: input.version ?? '1.0.0',
      ...(input.replaces ? { replaces: input.replaces } : {}),
      ...(input.minKubeVersion ? { minKubeVersion: input.minKubeVersion } : {}),
      installModes: input.installModes ?? allInstallModes,
      customresourcedefinitions: { owned: input.ownedCrds ?? [], required: input.requiredCrds ?? [] },
      install: {
        strategy: input.strategy ?? 'deployment',
        spec: {
          deployments: (input.deployments ?? [`${input.name}-operator`]).map((name) => ({ name, spec: deploymentSpec(name) })),
          permissions: (input.serviceAccounts ?? []).map((serviceAccountName) => ({
            serviceAccountName,
            rules: input.rules ?? [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
          })),
        },
      },
    },
  };
}

export async function getCsv(client: KubeClient, namespace: string, name: string): Promise<CsvObject | undefined> {
  return client.find<CsvObject>({ ...Kinds.clusterServiceVersion, namespace, name });
}

export async function waitForPhase(
  client: KubeClient,
  namespace: string,
  name: string,
  phase: string,
  reason?: string,
  timeoutMs = 15_000,
): Promise<CsvObject> {
  let last: CsvObject | undefined;
  try {
    return await eventually(
      async () => {
        last = await getCsv(client, namespace, name);
        return last?.status?.phase === phase && (reason === undefined || last.status.reason === reason) ? last : undefined;
      },
      { timeoutMs, message: `${namespace}/${name} ${phase}${reason ? `/${reason}` : ''}` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last status ${JSON.stringify(last?.status ? { phase: last.status.phase, reason: last.status.reason, message: last.status.message } : undefined)}`);
  }
}

export function crdManifest(plural: string, group: string, kind: string, versions: readonly string[] = ['v1']): CachedObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: plural.replace(/s$/, ''), kind, listKind: `${kind}List` },
      versions: versions.map((name, index) => ({
        name,
        served: true,
        storage: index === 0,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
    },
  };
}

export async function listEvents(client: KubeClient, namespace: string, name: string) {
  const events = await client.list<CachedObject & { reason?: string; message?: string; type?: string }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace, fieldSelector: `involvedObject.name=${name}` },
  );
  return events.items;
}

/**
 * What an InstallPlan applies for the CSV's permissions (ServiceAccounts, Roles, RoleBindings, ClusterRoles,
 * ClusterRoleBindings, from the same generator), for tests that create CSVs directly. Returns the objects.
 */
export async function installPermissions(client: KubeClient, namespace: string, name: string): Promise<CachedObject[]> {
  const live = await client.get({ ...Kinds.clusterServiceVersion, namespace, name });
  const objects = createRbacGenerator().permissionsForCsv({ csv: live as never }) as unknown as CachedObject[];
  for (const object of objects) await createUnlessExists(client, object);
  return objects;
}

/**
 * The same objects made from a CSV manifest before it is created (no owner references yet), so its
 * permissions are granted by the time the controller first looks. Returns them.
 */
export async function grantPermissions(client: KubeClient, manifest: CachedObject): Promise<CachedObject[]> {
  const objects = createRbacGenerator().permissionsForCsv({ csv: manifest as never }) as unknown as CachedObject[];
  for (const object of objects) await createUnlessExists(client, object);
  return objects;
}

/** Every phase/reason/message the CSV's condition history showed until `until` held. */
export async function historyUntil(
  client: KubeClient,
  namespace: string,
  name: string,
  until: (csv: CsvObject) => boolean,
  timeoutMs = 20_000,
): Promise<string[]> {
  const history = new Set<string>();
  let last: CsvObject | undefined;
  try {
    await eventually(
      async () => {
        last = await getCsv(client, namespace, name);
        for (const condition of last?.status?.conditions ?? []) history.add(`${condition.phase}/${condition.reason}/${condition.message}`);
        return last !== undefined && until(last);
      },
      { timeoutMs, message: `${namespace}/${name}` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; history:\n${[...history].join('\n')}\nlast status ${JSON.stringify(last?.status?.phase)}/${JSON.stringify(last?.status?.reason)}`);
  }
  return [...history];
}

export type RbacObject = CachedObject & {
  rules?: Array<Record<string, unknown>>;
  roleRef?: { apiGroup: string; kind: string; name: string };
  subjects?: Array<{ kind: string; name: string; namespace?: string }>;
};

/** Objects of a kind in every namespace, by label selector. */
export async function listAll<T extends CachedObject = RbacObject>(client: KubeClient, kind: { apiVersion: string; kind: string }, labelSelector: string): Promise<T[]> {
  return (await client.list<T>(kind, { labelSelector })).items;
}

export interface Harness {
  readonly env: Environment;
  readonly controller: Awaited<ReturnType<typeof startController>>;
}

/** A local API server and a running CSV controller for the tests of one file (started before, stopped after). */
export function useController(
  environmentOptions: Parameters<typeof startEnvironment>[0] = {},
  controllerOptions: Partial<CsvControllerOptions> = {},
): Harness {
  let env: Environment | undefined;
  let controller: Harness['controller'] | undefined;
  beforeAll(async () => {
    env = await startEnvironment(environmentOptions);
    controller = await startController(env, controllerOptions);
  });
  afterAll(async () => {
    await controller?.stop();
    await env?.stop();
  });
  return {
    get env() {
      if (!env) throw new Error('the test environment has not started');
      return env;
    },
    get controller() {
      if (!controller) throw new Error('the CSV controller has not started');
      return controller;
    },
  };
}

/** The namespace's `default` ServiceAccount, once the API server's service account controller has made it. */
export async function defaultServiceAccount(client: KubeClient, namespace: string): Promise<CachedObject> {
  return eventually(() => client.find({ apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: 'default' }), {
    message: `the default ServiceAccount of ${namespace}`,
  });
}

/** A namespace with an OperatorGroup `og` (OwnNamespace unless a spec is given), synced by the controller. */
export async function namespaceWithGroup(client: KubeClient, namespace: string, spec?: Record<string, unknown>): Promise<void> {
  await createOperatorNamespace(client, namespace, { groupName: 'og', ...(spec ? { spec } : {}) });
  await groupSynced(client, namespace, 'og');
}
