import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { KubeClient } from '@olm/controller-runtime';
import type { BundleImageLimits } from '@olm/bundle-puller';
import type { ApiServer } from '@olm/local-apiserver';
import type { PackageServer } from '@olm/packageserver';
import type { CatalogLimits } from '@olm/registry';
import { Command, Option } from 'commander';
import { inputError, usageError } from '../cli-errors.js';
import { olmDistribution, type Distribution } from '../distribution.js';
import type { ServedCatalog } from '../local-olm.js';
import { collect, parseDurationFlag, parseMilliseconds, parsePort } from '../option-parsers.js';
import { deployDirectory, exampleCatalogDirectory } from '../paths.js';
import { logLevels, type LogLevel } from '../runtime/log-levels.js';
import { untilStopped } from '../runtime/until-stopped.js';
import { addCatalogLimitOptions, catalogLimitsFromOptions, type CatalogLimitOptions } from './catalog-limit-options.js';
import {
  addBundleImageLimitOptions,
  addResolutionOptions,
  addSignatureLimitOptions,
  addStopOptions,
  bundleImageLimitsOf,
  signatureLimitsOf,
  type BundleImageLimitFlagValues,
  type SignatureLimitFlagValues,
} from './shared-options.js';

export interface UpOptions {
  readonly port: number;
  readonly host: string;
  readonly dataDir?: string;
  readonly kubeconfig?: string;
  /** Port of /metrics, /healthz and /readyz (0 picks a free one). */
  readonly metricsPort?: number;
  readonly logLevel?: LogLevel;
  /** Catalog directories served besides the bundled example catalog. */
  readonly catalogs?: readonly string[];
  /** Bounds of loading those catalogs (`--max-file-bytes` and the other catalog limit flags). */
  readonly catalogLimits?: Partial<CatalogLimits>;
  /** Registries to pull bundle images from over plain http. */
  readonly insecureRegistries?: readonly string[];
  /** How long a failing InstallPlan is retried (upstream's `--install-plan-retry-timeout`). */
  readonly installPlanRetryTimeoutMs?: number;
  /** Units of constraint evaluation one namespace resolution may spend. */
  readonly resolutionBudget?: number;
  /** How long a bundle image unpack may take (upstream's `--bundle-unpack-timeout`; 0 for none). */
  readonly bundleUnpackTimeoutMs?: number;
  /** Bounds of one bundle image (`--bundle-max-*`). */
  readonly bundleImageLimits?: Partial<BundleImageLimits>;
  /** Bounds of one image's signature verification (`--signature-max-*`). */
  readonly signatureLimits?: ReturnType<typeof signatureLimitsOf>;
  /** Start the controllers in this process (default); false leaves them to `olm run` against the kubeconfig. */
  readonly controllers?: boolean;
  /** Start the packageserver in this process (default); false leaves it to `olm packageserver`. */
  readonly packageServer?: boolean;
  /** Stop as soon as everything started (tests, smoke checks). */
  readonly exitAfterStart?: boolean;
  /** Stop after this many milliseconds (tests). */
  readonly runFor?: number;
  /** How long the local API server's simulated Deployments take to become available (tests). */
  readonly rolloutDelayMs?: number;
  /** The Kubernetes version the local API server reports (`/version`), e.g. `v1.28.3`. */
  readonly kubernetesVersion?: string;
}

/** The global catalog namespace `olm up` uses, as upstream's install does. */
const olmNamespace = 'olm';
/** The namespace of the global OperatorGroup: the kubeconfig's context namespace, so kubectl and `olm install` work there by default. */
const operatorsNamespace = 'operators';

/**
 * `olm up`: OLM on a local Kubernetes API server, end to end. Starts the server (in memory, or
 * durable in --data-dir), installs OLM's CRDs and namespaces, serves the example catalog (and any
 * --catalog directories) over gRPC with a CatalogSource each, starts the packageserver (the
 * `packages.operators.coreos.com/v1` PackageManifests, registered as an APIService), boots this
 * distribution's plugins (the controllers included) against it, writes a kubeconfig and runs
 * until Ctrl-C.
 */
export async function runUp(
  options: UpOptions,
  out: (text: string) => void = (text) => process.stdout.write(text),
  distribution: Distribution = olmDistribution,
): Promise<void> {
  const dataDir = options.dataDir !== undefined ? resolve(options.dataDir) : undefined;
  // A mistyped --catalog fails before anything starts.
  for (const directory of options.catalogs ?? []) await checkCatalogDirectory(directory);
  if (distribution.v0Apis === false && (options.catalogs ?? []).length > 0) {
    throw usageError(
      `--catalog serves a directory as a CatalogSource, an OLM v0 API that ${distribution.name} does not serve; ` +
        'create a ClusterCatalog for an image instead, or run olm up',
    );
  }
  const [{ KubeClient }, local, account] = await Promise.all([
    import('@olm/controller-runtime'),
    import('../local-olm.js'),
    import('../controller-account.js'),
  ]);
  await checkKubernetesVersion(options.kubernetesVersion);
  out('starting the local Kubernetes API server...\n');
  const server = await startLocalApiServer(options, dataDir);
  const client = new KubeClient({ kubeconfig: server.kubeconfig });
  let catalogs: ServedCatalog[] = [];
  let watcher: { stop(): void } | undefined;
  let packageServer: PackageServer | undefined;
  try {
    out(`  listening on ${server.url} (${dataDir !== undefined ? `data in ${dataDir}` : 'in memory'})\n`);
    out('installing OLM CRDs and namespaces...\n');
    await local.installOlmResources(client, { namespace: olmNamespace });
    // The controllers hold the rights a deployed OLM holds, not the admin's: what they lack shows here first.
    await account.applyControllerRbac(client, deployDirectory);
    const controllerKubeconfig = await account.serviceAccountKubeconfig(client, server, account.controllerAccount);
    const v0Apis = distribution.v0Apis !== false;
    if (v0Apis) {
      out('serving catalogs...\n');
      catalogs = await local.serveCatalogs(
        client,
        [
          { name: 'acme-examples', directory: exampleCatalogDirectory },
          ...(options.catalogs ?? []).map((directory) => ({ name: local.catalogSourceName(directory), directory })),
        ],
        olmNamespace,
        options.catalogLimits,
      );
      for (const catalog of catalogs) out(`  CatalogSource ${olmNamespace}/${catalog.name}: ${catalog.directory} on ${catalog.address}\n`);
      watcher = local.watchCatalogs(client, catalogs, olmNamespace, out);
    }
    if (v0Apis && options.packageServer !== false) {
      out('starting the packageserver...\n');
      packageServer = await startLocalPackageServer(client, options, distribution, out);
    }
    if (options.controllers === false) {
      out(`  no controllers in this process: run them with olm run --kubeconfig ${server.kubeconfigPath}\n`);
      printNextSteps(server.kubeconfigPath, distribution, out);
      await runUntilStopped(options, out);
    } else {
      await runControllersInProcess(client, server, controllerKubeconfig, options, distribution, out);
    }
  } finally {
    watcher?.stop();
    await packageServer?.stop();
    await Promise.all(catalogs.map((catalog) => catalog.server.stop({ graceMs: 1000 })));
    client.close();
    await server.stop();
  }
  out('stopped\n');
}

/** The distribution's controllers in this process, as the ServiceAccount `controllerKubeconfig` names, until stopped. */
async function runControllersInProcess(
  client: KubeClient,
  server: ApiServer,
  controllerKubeconfig: string,
  options: UpOptions,
  distribution: Distribution,
  out: (text: string) => void,
): Promise<void> {
  const [local, account, { startControllers }] = await Promise.all([import('../local-olm.js'), import('../controller-account.js'), import('../runtime/controllers.js')]);
  const catalogServerCa = join(dirname(server.kubeconfigPath), 'catalogd-ca.crt');
  const catalogServerCertificate = await local.localCatalogServerCertificate(options.host, catalogServerCa);
  out('starting the controllers...\n');
  // One local process: no other replica to elect a leader among.
  const controllers = await startControllers({
    // The controllers' own client, as their ServiceAccount (set-up and packageserver share the admin's).
    kubeconfig: controllerKubeconfig,
    plugins: distribution.distributionPlugins({
      namespace: olmNamespace,
      leaderElection: false,
      ...(options.insecureRegistries?.length ? { insecureRegistries: options.insecureRegistries } : {}),
      ...(options.installPlanRetryTimeoutMs !== undefined ? { installPlanRetryTimeoutMs: options.installPlanRetryTimeoutMs } : {}),
      ...(options.resolutionBudget !== undefined ? { resolutionBudget: options.resolutionBudget } : {}),
      ...(options.bundleUnpackTimeoutMs !== undefined ? { bundleUnpackTimeoutMs: options.bundleUnpackTimeoutMs } : {}),
      ...(options.bundleImageLimits ? { bundleImageLimits: options.bundleImageLimits } : {}),
      ...(options.signatureLimits ? { signatureLimits: options.signatureLimits } : {}),
      clusterCatalog: {
        server: { host: options.host, port: 0, tls: catalogServerCertificate },
        directories: { [local.exampleClusterCatalogName]: exampleCatalogDirectory },
      },
    }),
    metricsPort: options.metricsPort ?? 0,
    metricsHost: options.host,
    logLevel: options.logLevel ?? 'warn',
  });
  try {
    const exampleBase = await local.serveExampleClusterCatalog(client);
    out(`  booted ${controllers.kernel.plugins.map((plugin) => plugin.id).join(', ')}\n`);
    out(`  as ServiceAccount ${account.controllerAccount.namespace}/${account.controllerAccount.name} with the rights of deploy/10-rbac.yaml\n`);
    out(`  metrics, health and readiness on ${controllers.operationsUrl} (/metrics, /healthz, /readyz)\n`);
    out(`  ClusterCatalog ${local.exampleClusterCatalogName}: ${exampleBase} (/api/v1/all; CA ${catalogServerCa})\n`);
    printNextSteps(server.kubeconfigPath, distribution, out);
    await runUntilStopped(options, out);
  } finally {
    await controllers.stop();
  }
}

async function runUntilStopped(options: UpOptions, out: (text: string) => void): Promise<void> {
  if (!options.exitAfterStart) out('running; press Ctrl-C to stop\n');
  const reason = await untilStopped(options);
  if (reason === 'SIGINT' || reason === 'SIGTERM') out(`received ${reason}, stopping\n`);
}

async function checkKubernetesVersion(version: string | undefined): Promise<void> {
  if (version === undefined) return;
  const { versionInfo } = await import('@olm/local-apiserver');
  try {
    versionInfo(version);
  } catch (error) {
    throw usageError(`--kubernetes-version: ${(error as Error).message.replace(/^kubernetesVersion /, '')}`);
  }
}

/** The local API server over HTTPS, its kubeconfig's context in the operators namespace. */
async function startLocalApiServer(options: UpOptions, dataDir: string | undefined): Promise<ApiServer> {
  const { startApiServer } = await import('@olm/local-apiserver');
  const server = await startApiServer({
    port: options.port,
    host: options.host,
    kubeconfigPath: resolve(options.kubeconfig ?? join(dataDir ?? '.olm', 'kubeconfig')),
    ...(options.kubernetesVersion !== undefined ? { kubernetesVersion: options.kubernetesVersion } : {}),
    // HTTPS, as kube-apiserver: kubectl sends the kubeconfig's token only over TLS.
    tls: true,
    // People look at `kubectl get pods` after installing an operator: show them some.
    simulateWorkloadPods: true,
    ...(dataDir !== undefined ? { dataDir } : {}),
    ...(options.rolloutDelayMs !== undefined ? { deploymentRolloutDelayMs: options.rolloutDelayMs } : {}),
  }).catch((error: unknown) => {
    if ((error as { code?: string }).code === 'EADDRINUSE') {
      throw usageError(
        `cannot start the local API server: ${options.host}:${options.port} is already in use (another olm up?); ` +
          'stop what listens there, or pass --port with a free port (--port 0 picks one)',
      );
    }
    throw error;
  });
  await writeContextNamespace(server.kubeconfigPath, operatorsNamespace);
  return server;
}

/** The packageserver, registered as an APIService, reading catalogs through the distribution's catalog source types. */
async function startLocalPackageServer(client: KubeClient, options: UpOptions, distribution: Distribution, out: (text: string) => void): Promise<PackageServer> {
  const [packages, { boot, catalogSourceTypes }, { loadPlugins }, { createLogger }] = await Promise.all([
    import('@olm/packageserver'),
    import('@olm/core'),
    import('../lazy-plugin.js'),
    import('../runtime/logger.js'),
  ]);
  // The distribution's offline plugins give the packageserver the catalog source types the controllers open; they
  // hold nothing open (a source type's connections are its caller's to close), so their kernel is stopped at once.
  const catalogKernel = await boot({ plugins: await loadPlugins(distribution.resolutionPlugins) });
  await catalogKernel.stop();
  const packageServer = await packages.startPackageServer({
    client,
    catalogSourceTypes: catalogKernel.get(catalogSourceTypes),
    globalNamespace: olmNamespace,
    // Registered anew at each start (this port, this certificate) and removed at stop, so that a
    // restart with --data-dir never finds the group routed to a port nobody listens on.
    register: { namespace: olmNamespace, unregisterOnStop: true },
    logger: createLogger({ level: options.logLevel ?? 'warn' }).child({ component: 'packageserver' }),
  });
  try {
    await packageServer.waitForSync(60_000);
    await packages.waitForApiService(client, { timeoutMs: 30_000 });
  } catch (error) {
    await packageServer.stop();
    throw error;
  }
  const packageCount = new Set(packageServer.store.list(undefined).map((manifest) => manifest.metadata.name)).size;
  out(`  PackageManifests (${packages.packageServerApiServiceName}) on ${packageServer.url}: ${packageCount} packages\n`);
  return packageServer;
}

function printNextSteps(kubeconfigPath: string, distribution: Distribution, out: (text: string) => void): void {
  out(`\nOLM is up. kubeconfig: ${kubeconfigPath}\n`);
  out(`  export KUBECONFIG=${kubeconfigPath}\n`);
  if (distribution.v0Apis === false) {
    out('  kubectl get clustercatalogs                                   # the example catalog over catalogd\'s HTTPS API\n');
    out('  kubectl get clusterextensions                                 # packages installed from the ClusterCatalogs (see packages/controller-cluster-extension)\n');
    return;
  }
  out(`  kubectl get catalogsources -n ${olmNamespace}\n`);
  out('  kubectl get clustercatalogs                                   # OLM v1: the example catalog over catalogd\'s HTTPS API\n');
  out('  kubectl get packagemanifests -n operators                    # the operators the catalogs offer\n');
  out('  kubectl describe packagemanifest acme-database -n operators  # its channels, versions and CRDs\n');
  out('  pnpm -s olm install acme-backup                              # subscribe; its dependency acme-database comes along\n');
  out('  kubectl get subscriptions,installplans,csv -n operators\n');
  out('  pnpm -s olm status                                           # subscriptions, their CSVs, and plans waiting for approval\n');
  out('  pnpm -s olm uninstall acme-backup                            # remove it again (see --delete-crds, --delete-operand)\n');
  out('  kubectl get clusterextensions                                 # OLM v1: packages installed from the ClusterCatalogs (see packages/controller-cluster-extension)\n');
}

/** Sets the namespace of the kubeconfig's contexts, as `kubectl config set-context --current --namespace` does. */
async function writeContextNamespace(path: string, namespace: string): Promise<void> {
  const { parseDocument } = await import('yaml');
  const document = parseDocument(await readFile(path, 'utf8'));
  const contexts = document.get('contexts') as { items?: Array<{ setIn(path: string[], value: string): void }> } | undefined;
  for (const context of contexts?.items ?? []) context.setIn(['context', 'namespace'], namespace);
  await writeFile(path, document.toString(), { mode: 0o600 });
}

async function checkCatalogDirectory(directory: string): Promise<void> {
  const info = await stat(directory).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw inputError(
      `--catalog ${directory}: ${info ? 'not a directory' : 'no such directory'} (from ${process.cwd()}); ` +
        'pass a file-based catalog directory, e.g. --catalog examples/catalog',
    );
  }
}

export function registerUpCommand(program: Command, distribution: Distribution = olmDistribution): void {
  const command = program
    .command('up')
    .description("start OLM locally: a local Kubernetes API server, OLM's CRDs, the example catalog, the packageserver and the controllers")
    .option('--port <port>', 'port of the local API server (0 picks a free one)', parsePort, 6443)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'keep cluster state durable in this directory (default: in memory)')
    .option('--kubeconfig <path>', 'where to write the kubeconfig (default: <data-dir or ./.olm>/kubeconfig)')
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz (0 picks a free one)', parsePort, 0)
    .addOption(new Option('--log-level <level>', 'least severe log level of the controllers and the packageserver, written to stderr').choices([...logLevels]).default('warn'))
    .option('--insecure-registry <host[:port]>', 'pull bundle images from this registry over plain http (repeatable)', collect, [])
    .option('--catalog <dir>', 'also serve this file-based catalog directory (repeatable)', collect, [])
    .option('--install-plan-retry-timeout <duration>', 'how long an InstallPlan whose steps fail is retried before it fails (default 1m)')
    .option('--kubernetes-version <version>', 'the Kubernetes version the local API server reports, e.g. v1.28.3 (default v1.32.4)')
    .option('--bundle-unpack-timeout <duration>', 'how long a bundle image unpack may take before it fails with DeadlineExceeded (default 10m, 0 for none)')
    .option('--no-controllers', 'start no controllers: run them apart with olm run --kubeconfig <this kubeconfig> (one process per --controllers set, as on a real cluster)')
    .option('--no-packageserver', 'start no packageserver: run it apart with olm packageserver --kubeconfig <this kubeconfig>')
    .addOption(new Option('--rollout-delay <ms>', 'how long simulated Deployments take to become available').argParser(parseMilliseconds).hideHelp());
  addBundleImageLimitOptions(command);
  addSignatureLimitOptions(command);
  addCatalogLimitOptions(command);
  addResolutionOptions(command);
  addStopOptions(command).action(async (options: BundleImageLimitFlagValues & SignatureLimitFlagValues & CatalogLimitOptions & { port: number; host: string; dataDir?: string; kubeconfig?: string; catalog: string[]; insecureRegistry: string[]; installPlanRetryTimeout?: string; bundleUnpackTimeout?: string; metricsPort: number; logLevel: LogLevel; controllers: boolean; packageserver: boolean; exitAfterStart?: boolean; runFor?: number; rolloutDelay?: number; resolutionBudget?: number; kubernetesVersion?: string }) => {
    const retryTimeoutMs = await parseDurationFlag('--install-plan-retry-timeout', options.installPlanRetryTimeout);
    const unpackTimeoutMs = await parseDurationFlag('--bundle-unpack-timeout', options.bundleUnpackTimeout, { allowZero: true });
    const limits = bundleImageLimitsOf(options);
    const signatureLimits = signatureLimitsOf(options);
    await runUp({
      port: options.port,
      host: options.host,
      metricsPort: options.metricsPort,
      logLevel: options.logLevel,
      catalogs: options.catalog,
      catalogLimits: catalogLimitsFromOptions(options),
      insecureRegistries: options.insecureRegistry,
      ...(retryTimeoutMs !== undefined ? { installPlanRetryTimeoutMs: retryTimeoutMs } : {}),
      ...(unpackTimeoutMs !== undefined ? { bundleUnpackTimeoutMs: unpackTimeoutMs } : {}),
      ...(limits ? { bundleImageLimits: limits } : {}),
      ...(signatureLimits ? { signatureLimits } : {}),
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
      controllers: options.controllers,
      packageServer: options.packageserver,
      ...(options.exitAfterStart ? { exitAfterStart: true } : {}),
      ...(options.runFor !== undefined ? { runFor: options.runFor } : {}),
      ...(options.rolloutDelay !== undefined ? { rolloutDelayMs: options.rolloutDelay } : {}),
      ...(options.kubernetesVersion !== undefined ? { kubernetesVersion: options.kubernetesVersion } : {}),
      ...(options.resolutionBudget !== undefined ? { resolutionBudget: options.resolutionBudget } : {}),
    }, undefined, distribution);
  });
}
