import { definePlugin, kubeClient, logger, type Plugin } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { startPackageServer, type PackageServer, type PackageServerOptions } from './package-server.js';

export type PackageServerPluginOptions = Omit<PackageServerOptions, 'client' | 'logger'>;

/**
 * Runs the packageserver in a booted OLM: on start it connects to the cluster of the `kubeClient`
 * point, serves `packages.operators.coreos.com/v1` (and registers its APIService when
 * `register` is set), logging to the `logger` point; on stop it closes everything it opened.
 */
export function createPackageServerPlugin(options: PackageServerPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'packageserver',
    version: '0.1.0',
    requires: [kubeClient],
    register(context) {
      let server: PackageServer | undefined;
      let client: KubeClient | undefined;
      context.onStart(async (extensions) => {
        const connection = extensions.get(kubeClient);
        client = new KubeClient({ kubeconfig: connection.kubeconfig, ...(connection.context !== undefined ? { context: connection.context } : {}) });
        const log = extensions.find(logger);
        server = await startPackageServer({ ...options, client, ...(log ? { logger: log.child({ component: 'packageserver' }) } : {}) });
      });
      context.onStop(async () => {
        await server?.stop();
        client?.close();
      });
    },
  });
}
