import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImageSignatureVerifier, KubeClient } from '@olm/core';
import { silentLogger } from '@olm/controller-runtime';
import { createCatalogController, type CatalogControllerOptions } from '@olm/controller-catalog';
import { createRbacGenerator } from '@olm/plugin-rbac';
import { createLogicSolverBackend } from '@olm/plugin-sat-logic-solver';
import { createCatalogSourceTypes, loadCatalog, startRegistryServer, type RegistryServer } from '@olm/registry';
import { builtInConstraintEvaluators, createResolver } from '@olm/resolver';
import * as testing from '@olm/testing';
import { createBundlePuller, type BundlePullerPluginOptions } from '../src/index.js';

export { condition, createNamespace, eventually, grpcCatalogSource, subscription, type TestObject } from '@olm/testing';

import { Kinds } from '@olm/api';

export { Kinds };

type Kind = { readonly apiVersion: string; readonly kind: string };

/** A local API server with the OLM CRDs and the global catalog namespace `olm`, over HTTPS so kubectl can be a user too. */
function startCluster(options: Partial<testing.TestClusterOptions> = {}): Promise<testing.TestCluster> {
  return testing.startTestCluster({ tls: true, requestTimeoutMs: 10_000, namespaces: ['olm'], ...options });
}

/** A namespace with an OwnNamespace OperatorGroup named like it (annotated with upstream's unpack settings, say). */
export function createOperatorNamespace(client: KubeClient, name: string, annotations?: Record<string, string>): Promise<void> {
  return testing.createOperatorNamespace(client, name, annotations ? { annotations } : {});
}

export interface CatalogOperatorOptions {
  readonly controller?: Partial<CatalogControllerOptions>;
  readonly puller?: BundlePullerPluginOptions;
  /** Verifies the images of catalogs with a signature policy (`@olm/image-signatures`' tests give one), for the puller and the catalog controller. */
  readonly verifier?: ImageSignatureVerifier;
  /** The local API server's options, e.g. `podImageServers` for image catalogs. */
  readonly cluster?: Partial<testing.TestClusterOptions>;
}

/** The catalog operator's reconcilers in a manager of their own, with a bundle puller; both write with `client`. */
async function startCatalogOperator(cluster: testing.TestCluster, options: CatalogOperatorOptions = {}) {
  const { client } = cluster;
  const running = await testing.startReconcilers({
    kubeconfig: cluster.server.kubeconfig,
    controller: () => {
      const puller = createBundlePuller({ client: () => client, logger: silentLogger, ...options.puller, verifier: () => options.verifier });
      const controller = createCatalogController({
        client,
        resolver: createResolver({ satBackend: createLogicSolverBackend(), constraintEvaluators: builtInConstraintEvaluators }),
        rbacGenerator: createRbacGenerator(),
        catalogSourceTypes: createCatalogSourceTypes({ loadDirectory: (directory) => loadCatalog(directory) }),
        installPlanRetryTimeoutMs: 1_000,
        installingRequeueMs: 200,
        catalogHealthCheckIntervalMs: 300,
        catalogUnhealthyRetryMs: 200,
        bundlePuller: puller,
        ...(options.verifier ? { imageSignatureVerifier: options.verifier } : {}),
        ...options.controller,
      });
      return {
        reconcilers: controller.reconcilers,
        close: async () => {
          await controller.close();
          await puller.close();
        },
      };
    },
  });
  return { stop: running.stop };
}

/** A registry server for a file-based catalog of these blobs (written to `<directory>/catalog`). */
async function serveCatalog(directory: string, blobs: readonly object[]): Promise<RegistryServer> {
  const catalogDirectory = join(directory, 'catalog');
  mkdirSync(catalogDirectory);
  writeFileSync(join(catalogDirectory, 'catalog.json'), blobs.map((blob) => JSON.stringify(blob)).join('\n'));
  return startRegistryServer({ catalog: await loadCatalog(catalogDirectory), port: 0 });
}

export interface ImageCatalogEnvironment {
  readonly cluster: testing.TestCluster;
  readonly client: KubeClient;
  /** The gRPC registry serving the catalog (its `address` for more CatalogSources). */
  readonly catalogServer: RegistryServer;
  /** Stops the catalog operator and starts a new one with the same options (a restart). */
  restartOperator(): Promise<void>;
  /** Stops the operator, the catalog and the cluster. */
  stop(): Promise<void>;
}

/**
 * A cluster with the grpc CatalogSource `olm/<catalogSource>` serving `blobs` (written under `directory`),
 * and the catalog operator with a bundle puller running on it.
 */
export async function startImageCatalog(directory: string, catalogSource: string, blobs: readonly object[], options: CatalogOperatorOptions): Promise<ImageCatalogEnvironment> {
  const catalogServer = await serveCatalog(directory, blobs);
  const cluster = await startCluster(options.cluster);
  await cluster.client.create(testing.grpcCatalogSource('olm', catalogSource, catalogServer.address));
  let operator = await startCatalogOperator(cluster, options);
  return {
    cluster,
    client: cluster.client,
    catalogServer,
    async restartOperator() {
      await operator.stop();
      operator = await startCatalogOperator(cluster, options);
    },
    async stop() {
      await operator.stop();
      await catalogServer.stop();
      await cluster.stop();
    },
  };
}

export async function get(client: KubeClient, kind: Kind, namespace: string | undefined, name: string): Promise<testing.TestObject | undefined> {
  return client.find<testing.TestObject>({ ...kind, name, ...(namespace ? { namespace } : {}) });
}

export async function list(client: KubeClient, kind: Kind, namespace: string): Promise<testing.TestObject[]> {
  return (await client.list<testing.TestObject>(kind, { namespace })).items;
}

const phaseOf = (object: testing.TestObject | undefined) => (object?.status as { phase?: string } | undefined)?.phase;

/** The one InstallPlan of the namespace, once it is Complete. */
export function completedPlan(client: KubeClient, namespace: string): Promise<testing.TestObject> {
  return testing.eventually(
    async () => {
      const plans = await list(client, Kinds.installPlan, namespace);
      return plans.length === 1 && phaseOf(plans[0]) === 'Complete' && plans[0];
    },
    { message: `InstallPlan in ${namespace} Complete`, timeoutMs: 30_000 },
  );
}

/** The Subscription once its state is `AtLatestKnown`. */
export function settledSubscription(client: KubeClient, namespace: string, name: string): Promise<testing.TestObject> {
  return testing.eventually(async () => {
    const found = await get(client, Kinds.subscription, namespace, name);
    return (found?.status as { state?: string } | undefined)?.state === 'AtLatestKnown' && found;
  });
}

/** The Subscription's `BundleUnpackFailed` condition once it is True (and its message includes `includes`). */
export function unpackFailure(client: KubeClient, namespace: string, name: string, includes = '') {
  return testing.eventually(async () => {
    const failed = testing.condition(await get(client, Kinds.subscription, namespace, name), 'BundleUnpackFailed');
    return failed?.status === 'True' && failed.message?.includes(includes) && failed;
  });
}
