import { catalogServerCertificate, contribute, definePlugin, imageSignatureVerifier, kubeClient, optional, reconcilers, type Plugin } from '@olm/core';
import { createClusterCatalogController, type ClusterCatalogControllerOptions } from './controller.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export type ControllerClusterCatalogPluginOptions = ClusterCatalogControllerOptions;

/**
 * The ClusterCatalog controller as a kernel plugin: contributes the `cluster-catalog` reconciler (run by
 * the controller-runtime plugin, writing with the shared `kubeClient`) and starts the catalog content
 * HTTPS server before it, stopping it at shutdown.
 */
export function createControllerClusterCatalogPlugin(options: ControllerClusterCatalogPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-cluster-catalog',
    version: packageJson.version,
    deps: { client: kubeClient, verifier: optional(imageSignatureVerifier) },
    provides: [reconcilers, catalogServerCertificate],
    init({ client, verifier }) {
      const controller = createClusterCatalogController({ ...options, client, ...(verifier ? { verifier } : {}) });
      return {
        provide: [...controller.reconcilers.map((reconciler) => contribute(reconcilers, reconciler)), contribute(catalogServerCertificate, () => controller.server?.certificate)],
        start: () => controller.start(),
        stop: () => controller.stop(),
      };
    },
  });
}

/** The plugin with default options (content server on 127.0.0.1, a free port, a self-signed certificate). */
export const controllerClusterCatalogPlugin = createControllerClusterCatalogPlugin();
