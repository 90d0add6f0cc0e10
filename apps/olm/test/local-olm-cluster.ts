import type { KubeClient } from '@olm/controller-runtime';
import type { ApiServer } from '@olm/local-apiserver';
import { startPackageServer, waitForApiService, type PackageServer } from '@olm/packageserver';
import { createCatalogSourceTypes, loadCatalog } from '@olm/registry';
import { createOperatorNamespace, startTestCluster, type TestClusterOptions } from '@olm/testing';
import { installOlmResources, serveCatalogs, type ServedCatalog } from '../src/local-olm.js';
import { exampleCatalogDirectory } from '../src/paths.js';
import { distributionPlugins } from '../src/plugins.js';
import { startControllers, type RunningControllers } from '../src/runtime/controllers.js';

export interface OlmCluster {
  readonly server: ApiServer;
  readonly client: KubeClient;
  /** The kubeconfig file of the API server, for the CLI's --kubeconfig. */
  readonly kubeconfigPath: string;
  readonly catalogs: readonly ServedCatalog[];
  stop(): Promise<void>;
}

export interface OlmClusterOptions extends Omit<TestClusterOptions, 'olmCrds' | 'namespaces'> {
  /** Catalog directories served as CatalogSources in `olm`; default the example catalog as `acme-examples`. */
  readonly catalogs?: ReadonlyArray<{ readonly name: string; readonly directory: string }>;
  /** Namespaces made ready for operators: each with an OwnNamespace OperatorGroup named like it. */
  readonly operatorNamespaces?: readonly string[];
}

/**
 * A local API server prepared as `olm run` expects a cluster: OLM's CRDs and namespaces as `olm up`
 * installs them, catalogs served in `olm`, and namespaces with OperatorGroups. No controllers run.
 */
export async function startOlmCluster(options: OlmClusterOptions = {}): Promise<OlmCluster> {
  const { catalogs: catalogDirectories = [{ name: 'acme-examples', directory: exampleCatalogDirectory }], operatorNamespaces = [], ...clusterOptions } = options;
  const cluster = await startTestCluster({ requestTimeoutMs: 30_000, ...clusterOptions, olmCrds: false });
  let catalogs: ServedCatalog[] = [];
  const stop = async () => {
    await Promise.all(catalogs.map((catalog) => catalog.server.stop({ graceMs: 0 })));
    await cluster.stop();
  };
  try {
    await installOlmResources(cluster.client, { namespace: 'olm' });
    catalogs = await serveCatalogs(cluster.client, catalogDirectories, 'olm');
    for (const namespace of operatorNamespaces) await createOperatorNamespace(cluster.client, namespace);
  } catch (error) {
    await stop();
    throw error;
  }
  return { server: cluster.server, client: cluster.client, kubeconfigPath: cluster.server.kubeconfigPath, catalogs, stop };
}

export type LocalOlm = Omit<OlmCluster, 'catalogs'>;

/**
 * What `olm up` runs, in this process: the local API server, OLM's CRDs and namespaces, the example
 * catalog as `olm/acme-examples`, the packageserver registered as an APIService, and the
 * controllers (CSV and catalog).
 */
export async function startLocalOlm(): Promise<LocalOlm> {
  const cluster = await startOlmCluster({ apiServiceCheckIntervalMs: 500 });
  let packageServer: PackageServer | undefined;
  let controllers: RunningControllers | undefined;
  const stop = async () => {
    await controllers?.stop();
    await packageServer?.stop();
    await cluster.stop();
  };
  try {
    packageServer = await startPackageServer({
      client: cluster.client,
      // the registry plugin's source types, which the packageserver reads every catalog through
      catalogSourceTypes: new Map(createCatalogSourceTypes({ loadDirectory: (directory) => loadCatalog(directory) }).map((type) => [type.sourceType, type])),
      globalNamespace: 'olm',
      register: { namespace: 'olm', unregisterOnStop: true },
    });
    await packageServer.waitForSync(30_000);
    await waitForApiService(cluster.client, { timeoutMs: 30_000 });
    controllers = await startControllers({
      kubeconfig: cluster.server.kubeconfig,
      plugins: distributionPlugins({ namespace: 'olm', leaderElection: false }),
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      logLevel: 'silent',
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { server: cluster.server, client: cluster.client, kubeconfigPath: cluster.kubeconfigPath, stop };
}
