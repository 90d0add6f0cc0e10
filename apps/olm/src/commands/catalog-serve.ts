import { Option } from 'commander';
import type { Command } from 'commander';
import { usageError } from '../cli-errors.js';
import { addCatalogHttpOptions, startCatalogHttp, type CatalogHttpOptions } from './catalog-serve-http.js';
import { commandGroup } from './command-group.js';
import { addCatalogLimitOptions, catalogLimitsFromOptions, type CatalogLimitOptions } from './catalog-limit-options.js';

interface ServeOptions extends CatalogHttpOptions {
  readonly port: string;
  readonly host: string;
  readonly exitAfterStart?: boolean;
}

/** `olm catalog serve DIR`: the file-based catalog in DIR over the registry gRPC API, like `opm serve`. */
export function registerCatalogServeCommand(program: Command): void {
  const command = commandGroup(program, 'catalog', 'work with file-based catalogs')
    .command('serve')
    .description('serve a file-based catalog directory over the registry gRPC API (api.Registry + grpc.health.v1) until SIGINT/SIGTERM')
    .argument('<dir>', 'the catalog directory')
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', '50051')
    // Loopback unless asked: a catalog server in a pod says `--host 0.0.0.0` (deploy/30-catalog.yaml).
    .option('--host <host>', 'interface to listen on (0.0.0.0 for every interface, as in a pod)', '127.0.0.1')
    .addOption(new Option('--exit-after-start', 'stop as soon as the server is listening (for tests)').hideHelp());
  addCatalogHttpOptions(addCatalogLimitOptions(command))
    .action(async (dir: string, options: ServeOptions & CatalogLimitOptions) => {
      const port = Number(options.port);
      if (!/^\d+$/.test(options.port) || port > 65535) throw usageError(`--port must be an integer from 0 to 65535, got "${options.port}"`);

      const { loadCatalog, startRegistryServer } = await import('@olm/registry');
      const catalog = await loadCatalog(dir, { limits: catalogLimitsFromOptions(options) });
      const server = await startRegistryServer({ catalog, port, host: options.host });
      let bundles = 0;
      for (const pkg of catalog.packages.values()) bundles += pkg.bundles.size;
      process.stdout.write(`serving ${dir} (${catalog.packages.size} packages, ${bundles} bundles) on ${server.address}\n`);
      const http = await startCatalogHttp(dir, catalog, options, options.host).catch(async (error: unknown) => {
        await server.stop();
        throw error;
      });
      if (http !== undefined) process.stdout.write(`serving catalogd's HTTP API on ${http.url}\n`);
      if (!options.exitAfterStart) await untilSignal();
      await Promise.all([server.stop(), http?.stop()]);
    });
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
