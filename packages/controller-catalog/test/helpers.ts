import type { KubeClient } from '@olm/core';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ApiServerOptions } from '@olm/local-apiserver';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { createCatalogSourceTypes, loadCatalog, startRegistryServer, type GrpcSourceTypeOptions, type RegistryServer } from '@olm/registry';
import { builtInConstraintEvaluators, createResolver } from '@olm/resolver';
import * as testing from '@olm/testing';
import { createCatalogController, type CatalogControllerOptions } from '../src/index.js';
import { Kinds, type AnyObject } from '../src/kinds.js';

export { condition, createNamespace, eventually, grpcCatalogSource, sleep, subscription } from '@olm/testing';

export const exampleCatalogDir = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));

export type TestServer = testing.TestCluster['server'];

/**
 * A local API server with the OLM CRDs installed and the global catalog namespace `olm`, over
 * HTTPS so that kubectl (which sends credentials only over TLS) can be a user too.
 */
export function startCluster(options: Omit<ApiServerOptions, 'port'> = {}): Promise<testing.TestCluster> {
  return testing.startTestCluster({ tls: true, requestTimeoutMs: 10_000, namespaces: ['olm'], ...options });
}

export async function startRegistry(port = 0): Promise<RegistryServer> {
  return startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port });
}

/** A namespace with an OwnNamespace OperatorGroup named like it. */
export function createOperatorNamespace(client: KubeClient, name: string, annotations?: Record<string, string>): Promise<void> {
  return testing.createOperatorNamespace(client, name, annotations ? { annotations } : {});
}

/** The registry plugin's source types (grpc with its registry Pods, configmap, internal, fbc-directory), as a distribution boots them. */
export function builtInSourceTypes(grpc: GrpcSourceTypeOptions = {}) {
  return createCatalogSourceTypes({ loadDirectory: (directory) => loadCatalog(directory), grpc });
}

export function controllerOptions(client: KubeClient, overrides: Partial<CatalogControllerOptions> = {}): CatalogControllerOptions {
  return {
    client,
    resolver: createResolver({
      satBackend: createLogicSolverBackend(),
      constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()],
    }),
    rbacGenerator: createRbacGenerator(),
    catalogSourceTypes: builtInSourceTypes(),
    installPlanRetryTimeoutMs: 1_000,
    installingRequeueMs: 200,
    catalogHealthCheckIntervalMs: 300,
    catalogUnhealthyRetryMs: 200,
    ...overrides,
  };
}

/** The catalog controller's reconcilers in a manager of their own; the controller writes with `client`. */
export async function startController(server: TestServer, client: KubeClient, overrides: Partial<CatalogControllerOptions> = {}) {
  const running = await testing.startReconcilers({ kubeconfig: server.kubeconfig, controller: () => createCatalogController(controllerOptions(client, overrides)) });
  return { manager: running.manager, controller: running.controller, stop: running.stop };
}

export async function get(client: KubeClient, kind: { apiVersion: string; kind: string }, namespace: string | undefined, name: string): Promise<AnyObject | undefined> {
  return client.find<AnyObject>({ ...kind, name, ...(namespace ? { namespace } : {}) });
}

export async function list(client: KubeClient, kind: { apiVersion: string; kind: string }, namespace?: string): Promise<AnyObject[]> {
  return (await client.list<AnyObject>(kind, namespace ? { namespace } : {})).items;
}

/** kubectl, as a user would run it (`$KUBECTL`, else `kubectl` on PATH); undefined when this machine has none. */
export const kubectlBinary: string | undefined = (() => {
  if (testing.kubectlAvailable()) return testing.kubectlBinary;
  console.warn(`controller-catalog tests: "${testing.kubectlBinary} version --client" failed; user steps go through the API client instead (set KUBECTL to a kubectl binary)`);
  return undefined;
})();

/** Runs kubectl against the test API server and returns its output. */
export async function kubectl(server: TestServer, args: readonly string[]): Promise<string> {
  if (!kubectlBinary) throw new Error('kubectl is not available');
  const { stdout } = await promisify(execFile)(kubectlBinary, ['--kubeconfig', server.kubeconfigPath, ...args], { encoding: 'utf8', timeout: 20_000 });
  return stdout;
}

/** Approves an InstallPlan the way a user does: `kubectl patch installplan … -p '{"spec":{"approved":true}}'`. */
export async function approveInstallPlan(server: TestServer, client: KubeClient, namespace: string, name: string): Promise<void> {
  if (!kubectlBinary) {
    await client.patch({ ...Kinds.installPlan, namespace, name }, { spec: { approved: true } });
    return;
  }
  const output = await kubectl(server, ['patch', 'installplan', name, '-n', namespace, '--type', 'merge', '-p', '{"spec":{"approved":true}}']);
  if (!output.includes(`installplan.operators.coreos.com/${name} patched`)) throw new Error(`unexpected kubectl output: ${output}`);
}

/**
 * Plays the OLM operator's part in an upgrade, which these tests do not run: a CSV named by another
 * CSV's `spec.replaces` is deleted (upstream deletes it once its successor succeeds). Returns a stop function.
 */
export function collectReplacedCsvs(client: KubeClient, namespace: string): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running) {
      const csvs = await list(client, Kinds.clusterServiceVersion, namespace).catch(() => []);
      const replaced = new Set(csvs.map((csv) => (csv.spec as { replaces?: string } | undefined)?.replaces).filter(Boolean));
      for (const csv of csvs) {
        if (replaced.has(csv.metadata?.name)) await client.delete({ ...Kinds.clusterServiceVersion, namespace, name: csv.metadata!.name! }).catch(() => undefined);
      }
      await testing.sleep(100);
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

/**
 * The usual environment of a catalog-operator test, for a describe block: a cluster, the example catalog
 * served over gRPC as the global `olm/acme-examples`, and the controller. Read the fields inside tests.
 */
export function useExampleCatalogEnvironment() {
  const environment = {} as { cluster: testing.TestCluster; client: KubeClient; registry: RegistryServer; controller: Awaited<ReturnType<typeof startController>> };
  beforeAll(async () => {
    environment.cluster = await startCluster();
    environment.client = environment.cluster.client;
    environment.registry = await startRegistry();
    await environment.client.create(testing.grpcCatalogSource('olm', 'acme-examples', environment.registry.address));
    environment.controller = await startController(environment.cluster.server, environment.client);
  });
  afterAll(async () => {
    await environment.controller?.stop();
    await environment.registry?.stop();
    await environment.cluster?.stop();
  });
  return environment;
}
