import { catalogSourceTypes, definePlugin, describeError, kubeClient, logger, optional, type Plugin } from '@olm/core';
import { startPackageServer, type PackageServer, type PackageServerOptions } from './package-server.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export interface PackageServerPluginOptions extends Omit<PackageServerOptions, 'client' | 'logger' | 'catalogSourceTypes'> {
  /** How long start waits for every CatalogSource's registry to be read once (default 60 s); it then goes on with what was read. */
  readonly syncTimeoutMs?: number;
  /** Called once the server listens and has synced (`olm packageserver` prints its address). */
  readonly onServing?: (server: PackageServer) => void;
}

/**
 * Runs the packageserver in a booted OLM: on start it serves `packages.operators.coreos.com/v1` with
 * the shared `kubeClient` and the booted `catalogSourceTypes` (and registers its APIService when `register` is set), logging to the
 * `logger` point, and waits for the first read of every catalog, so that a process reporting ready
 * once the kernel started serves complete lists. On stop it closes everything it opened.
 */
export function createPackageServerPlugin(options: PackageServerPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'packageserver',
    version: packageJson.version,
    deps: { client: kubeClient, catalogSourceTypes, logger: optional(logger) },
    init({ client, catalogSourceTypes: sourceTypes, logger: parent }) {
      const log = parent?.child({ component: 'packageserver' });
      const { syncTimeoutMs, onServing, ...serverOptions } = options;
      let server: PackageServer | undefined;
      return {
        async start() {
          server = await startPackageServer({ ...serverOptions, client, catalogSourceTypes: sourceTypes, ...(log ? { logger: log } : {}) });
          await server.waitForSync(syncTimeoutMs ?? 60_000).catch((error: unknown) =>
            log?.warn('not every catalog was read in time; serving what was read, the rest follows', { error: describeError(error) }),
          );
          onServing?.(server);
        },
        stop: () => server?.stop(),
      };
    },
  });
}
