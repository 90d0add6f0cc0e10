import { KubeClient } from '@olm/controller-runtime';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { startPackageServer, waitForApiService, type PackageServer } from '@olm/packageserver';
import { installOlmResources, serveCatalogs, type ServedCatalog } from '../src/local-olm.js';
import { exampleCatalogDirectory } from '../src/paths.js';
import { distributionPlugins } from '../src/plugins.js';
import { startControllers, type RunningControllers } from '../src/runtime/controllers.js';

export interface LocalOlm {
  readonly server: ApiServer;
  readonly client: KubeClient;
  /** The kubeconfig file of the API server, for the CLI's --kubeconfig. */
  readonly kubeconfigPath: string;
  stop(): Promise<void>;
}

/**
 * What `olm up` runs, in this process: the local API server, OLM's CRDs and namespaces, the example
 * catalog as `olm/acme-examples`, the packageserver registered as an APIService, and the
 * controllers (CSV and catalog).
 */
export async function startLocalOlm(): Promise<LocalOlm> {
  const server = await startApiServer({ port: 0, apiServiceCheckIntervalMs: 500 });
  const client = new KubeClient({ kubeconfig: server.kubeconfig, requestTimeoutMs: 20_000 });
  let catalogs: ServedCatalog[] = [];
  let packageServer: PackageServer | undefined;
  let controllers: RunningControllers | undefined;
  const stop = async () => {
    await controllers?.stop();
    await packageServer?.stop();
    await Promise.all(catalogs.map((catalog) => catalog.server.stop({ graceMs: 0 })));
    client.close();
    await server.stop();
  };
  try {
    await installOlmResources(client, { namespace: 'olm' });
    catalogs = await serveCatalogs(client, [{ name: 'acme-examples', directory: exampleCatalogDirectory }], 'olm');
    packageServer = await startPackageServer({ client, globalNamespace: 'olm', register: { namespace: 'olm', unregisterOnStop: true } });
    await packageServer.waitForSync(30_000);
    await waitForApiService(client, { timeoutMs: 30_000 });
    controllers = await startControllers({
      kubeconfig: server.kubeconfig,
      plugins: distributionPlugins({ namespace: 'olm', leaderElection: false }),
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      logLevel: 'silent',
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { server, client, kubeconfigPath: server.kubeconfigPath, stop };
}
