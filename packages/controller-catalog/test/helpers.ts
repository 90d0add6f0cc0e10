import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { crds } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { createManager, isAlreadyExists, KubeClient, type Manager } from '@olm/controller-runtime';
import { selfSignedCertificate, startApiServer, type ApiServerOptions, type TlsMaterial } from '@olm/local-apiserver';
import { createCelConstraintEvaluator } from '@olm/plugin-cel';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { createCatalogSourceTypes, loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { builtInConstraintEvaluators, createResolver } from '@olm/resolver';
import { createCatalogController, type CatalogController, type CatalogControllerOptions } from '../src/index.js';
import { Kinds, type AnyObject } from '../src/kinds.js';

export const exampleCatalogDir = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));

export type TestServer = Awaited<ReturnType<typeof startApiServer>>;

let certificate: TlsMaterial | undefined;

/**
 * A local API server with the OLM CRDs installed and the global catalog namespace `olm`, over
 * HTTPS so that kubectl (which sends credentials only over TLS) can be a user too.
 */
export async function startCluster(options: Omit<ApiServerOptions, 'port'> = {}): Promise<{ server: TestServer; client: KubeClient; stop(): Promise<void> }> {
  const server = await startApiServer({ tls: (certificate ??= selfSignedCertificate()), ...options, port: 0 });
  const client = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 10_000 });
  for (const crd of crds) await client.create(crd as unknown as CachedObject);
  await createNamespace(client, 'olm');
  return {
    server,
    client,
    async stop() {
      client.close();
      await server.stop();
    },
  };
}

export async function startRegistry(port = 0): Promise<RegistryServer> {
  return startRegistryServer({ catalog: await loadCatalog(exampleCatalogDir), port });
}

export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  try {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** A namespace with an OwnNamespace OperatorGroup. */
export async function createOperatorNamespace(client: KubeClient, name: string, annotations?: Record<string, string>): Promise<void> {
  await createNamespace(client, name);
  await client.create({
    ...Kinds.operatorGroup,
    metadata: { name, namespace: name, ...(annotations ? { annotations } : {}) },
    spec: { targetNamespaces: [name] },
  });
}

export function grpcCatalogSource(namespace: string, name: string, address: string): AnyObject {
  return { ...Kinds.catalogSource, metadata: { name, namespace }, spec: { sourceType: 'grpc', address } };
}

export function subscription(namespace: string, name: string, spec: Record<string, unknown>): AnyObject {
  return {
    ...Kinds.subscription,
    metadata: { name, namespace },
    spec: { source: 'acme-examples', sourceNamespace: 'olm', channel: 'stable', installPlanApproval: 'Automatic', ...spec, name: spec.name ?? name },
  };
}

export function controllerOptions(client: KubeClient, overrides: Partial<CatalogControllerOptions> = {}): CatalogControllerOptions {
  return {
    client,
    resolver: createResolver({
      satBackend: createLogicSolverBackend(),
      constraintEvaluators: [...builtInConstraintEvaluators, createCelConstraintEvaluator()],
    }),
    rbacGenerator: createRbacGenerator(),
    catalogSourceTypes: createCatalogSourceTypes({ loadDirectory: (directory) => loadCatalog(directory) }),
    installPlanRetryTimeoutMs: 1_000,
    installingRequeueMs: 200,
    catalogHealthCheckIntervalMs: 300,
    catalogUnhealthyRetryMs: 200,
    ...overrides,
  };
}

/** The catalog controller's reconcilers in a manager of their own. */
export async function startController(server: TestServer, client: KubeClient, overrides: Partial<CatalogControllerOptions> = {}): Promise<{ manager: Manager; controller: CatalogController; stop(): Promise<void> }> {
  const controller = createCatalogController(controllerOptions(client, overrides));
  const manager = createManager({ kubeconfig: server.kubeconfig, gracefulShutdownTimeoutMs: 2_000 });
  for (const reconciler of controller.reconcilers) manager.add(reconciler);
  await manager.start();
  return {
    manager,
    controller,
    async stop() {
      await manager.stop();
      await controller.close();
    },
  };
}

export async function eventually<T>(probe: () => T | Promise<T>, options: { timeoutMs?: number; message?: string } = {}): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value as Exclude<T, false | null | undefined | 0 | ''>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${options.message ?? 'condition'} not met in time${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function get(client: KubeClient, kind: { apiVersion: string; kind: string }, namespace: string | undefined, name: string): Promise<AnyObject | undefined> {
  return client.find<AnyObject>({ ...kind, name, ...(namespace ? { namespace } : {}) });
}

export async function list(client: KubeClient, kind: { apiVersion: string; kind: string }, namespace?: string): Promise<AnyObject[]> {
  return (await client.list<AnyObject>(kind, namespace ? { namespace } : {})).items;
}

export function condition(object: AnyObject | undefined, type: string): { type: string; status: string; reason?: string; message?: string } | undefined {
  return ((object?.status as { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> } | undefined)?.conditions ?? []).find(
    (entry) => entry.type === type,
  );
}

/** kubectl, as a user would run it (`$KUBECTL`, else `kubectl` on PATH); undefined when this machine has none. */
export const kubectlBinary: string | undefined = (() => {
  const candidate = process.env['KUBECTL'] ?? 'kubectl';
  try {
    execFileSync(candidate, ['version', '--client'], { stdio: 'ignore', timeout: 10_000 });
    return candidate;
  } catch {
    console.warn(`controller-catalog tests: "${candidate} version --client" failed; user steps go through the API client instead (set KUBECTL to a kubectl binary)`);
    return undefined;
  }
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
      await sleep(100);
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}
