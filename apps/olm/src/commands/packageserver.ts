import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { inputError, usageError } from '../cli-errors.js';
import { loadKubeconfig, type ClusterFlags } from '../kubeconfig.js';
import { parseDurationFlag, parsePort } from '../option-parsers.js';
import type { LogLevel } from '../runtime/log-levels.js';
import { untilStopped, type StopConditions } from '../runtime/until-stopped.js';
import { olmDistribution, type Distribution } from '../distribution.js';
import type { LazyPlugin } from '../lazy-plugin.js';
import { addClusterOptions, addOperationsOptions, addStopOptions } from './shared-options.js';

export interface PackageServerCommandOptions extends ClusterFlags, StopConditions {
  /** The global catalog namespace, and where the Service the APIService points at lives. */
  readonly namespace: string;
  readonly host: string;
  readonly port: number;
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
  readonly clientCaFile?: string;
  readonly serviceName: string;
  readonly servicePort: number;
  /** Write the APIService `v1.packages.operators.coreos.com` (default true; `--no-register`). */
  readonly register: boolean;
  /** `--interval`: how often every catalog is re-read while the OLMConfig sets no packageServerSyncInterval (a Go duration). */
  readonly interval?: string;
  readonly metricsPort: number;
  readonly metricsHost: string;
  readonly logLevel: LogLevel;
}

async function readPem(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw inputError(`${flag} ${path}: cannot read it: ${(error as Error).message}`, error);
  }
}

/**
 * `olm packageserver`: the `packages.operators.coreos.com/v1` aggregated API (PackageManifests)
 * for a real cluster, booted like `olm run` (same cluster flags, `/metrics`, `/healthz`,
 * `/readyz`, JSON logs): ready once every CatalogSource was read once. It registers the APIService
 * with its CA, pointing at the Service a Deployment puts in front of it (`deploy/40-packageserver.yaml`).
 */
export async function runPackageServer(
  options: PackageServerCommandOptions,
  out: (text: string) => void = (text) => process.stdout.write(text),
  // The distribution's offline plugins provide the catalog source types the catalog operator opens, so both read the same types.
  catalogPlugins: readonly LazyPlugin[] = olmDistribution.resolutionPlugins,
): Promise<void> {
  // Bad flags fail before anything connects.
  if ((options.tlsCertFile === undefined) !== (options.tlsKeyFile === undefined)) {
    throw usageError('--tls-cert-file and --tls-key-file go together: pass both (a certificate and its key), or neither for a self-signed certificate');
  }
  const tls =
    options.tlsCertFile !== undefined && options.tlsKeyFile !== undefined
      ? { cert: await readPem('--tls-cert-file', options.tlsCertFile), key: await readPem('--tls-key-file', options.tlsKeyFile) }
      : true;
  const clientCa = options.clientCaFile !== undefined ? await readPem('--client-ca-file', options.clientCaFile) : undefined;
  const refreshIntervalMs = await parseDurationFlag('--interval', options.interval);
  const { kubeconfig } = await loadKubeconfig(options);
  const [{ createPackageServerPlugin }, { startControllers }] = await Promise.all([import('@olm/packageserver'), import('../runtime/controllers.js')]);
  let url = '';
  const running = await startControllers({
    kubeconfig,
    plugins: [
      ...catalogPlugins,
      createPackageServerPlugin({
        globalNamespace: options.namespace,
        host: options.host,
        port: options.port,
        tls,
        // A self-signed certificate names the Service, for the aggregator to verify, even when another tool writes the APIService.
        certificateHosts: [`${options.serviceName}.${options.namespace}.svc`, `${options.serviceName}.${options.namespace}.svc.cluster.local`],
        ...(clientCa !== undefined ? { clientCa } : {}),
        ...(refreshIntervalMs !== undefined ? { refreshIntervalMs } : {}),
        // In a cluster a Service selects the pods: write the APIService only.
        ...(options.register ? { register: { namespace: options.namespace, serviceName: options.serviceName, servicePort: options.servicePort, externalHost: false } } : {}),
        onServing: (server) => (url = server.url),
      }),
    ],
    metricsPort: options.metricsPort,
    metricsHost: options.metricsHost,
    logLevel: options.logLevel,
  });
  try {
    out(
      `packageserver serving packages.operators.coreos.com/v1 on ${url}` +
        (options.register ? ` (APIService v1.packages.operators.coreos.com -> Service ${options.namespace}/${options.serviceName}:${options.servicePort})` : ' (not registered)') +
        `; metrics, health and readiness on ${running.operationsUrl} (/metrics, /healthz, /readyz)\n`,
    );
    await untilStopped(options);
  } finally {
    await running.stop();
  }
}

export function registerPackageServerCommand(program: Command, distribution: Distribution = olmDistribution): void {
  const command = program
    .command('packageserver')
    .description('serve the packages.operators.coreos.com/v1 API (PackageManifests of every CatalogSource) behind the cluster\'s aggregator');
  addClusterOptions(command, { inCluster: true })
    .option('-n, --namespace <namespace>', 'the global catalog namespace, and the namespace of the Service the APIService points at', 'olm')
    .option('--host <host>', 'interface to serve the API on', '0.0.0.0')
    .option('--port <port>', 'HTTPS port of the API (0 picks a free one)', parsePort, 5443)
    .option('--tls-cert-file <file>', 'PEM serving certificate, also written to the APIService as its CA (default: a self-signed one for the Service\'s DNS names)')
    .option('--tls-key-file <file>', 'PEM private key of --tls-cert-file')
    .option('--client-ca-file <file>', "require client certificates signed by this PEM CA (the aggregator's front-proxy CA)")
    .option('--service-name <name>', 'the Service in front of this server, named by the APIService', 'packageserver-service')
    .option('--service-port <port>', 'the port of that Service', parsePort, 443)
    .option('--no-register', 'do not write the APIService (it is managed elsewhere)')
    .option('--interval <duration>', "how often every catalog is re-read (upstream's flag; default 5m); the OLMConfig cluster's spec.features.packageServerSyncInterval overrides it");
  addOperationsOptions(command);
  addStopOptions(command).action(async (options: PackageServerCommandOptions) => {
    await runPackageServer(options, undefined, distribution.resolutionPlugins);
  });
}
