import type { BundleImageLimits } from '@olm/bundle-puller';
import type { ControllerClusterCatalogPluginOptions } from '@olm/controller-cluster-catalog';
import { Command, Option } from 'commander';
import { availableControllers, leaseNameFor, selectControllers } from '../controller-selection.js';
import { olmDistribution, type Distribution } from '../distribution.js';
import { loadKubeconfig } from '../kubeconfig.js';
import type { LazyPlugin } from '../lazy-plugin.js';
import { collect, parseDurationFlag, parseList, parseNamespacedName } from '../option-parsers.js';
import { defaultLeaseName, watchedNamespaces, type DistributionOptions } from '../plugins.js';
import type { LogLevel } from '../runtime/log-levels.js';
import { untilStopped } from '../runtime/until-stopped.js';
import { addClusterCatalogOptions, clusterCatalogOptionsOf, type ClusterCatalogFlagValues } from './cluster-catalog-options.js';
import {
  addBundleImageLimitOptions,
  addClusterOptions,
  addOperationsOptions,
  addResolutionOptions,
  addSignatureLimitOptions,
  addStopOptions,
  bundleImageLimitsOf,
  signatureLimitsOf,
  type BundleImageLimitFlagValues,
  type SignatureLimitFlagValues,
} from './shared-options.js';

export interface RunOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly inCluster?: boolean;
  /** Where the pod's service-account files are mounted below (tests); default the filesystem root. */
  readonly serviceAccountRoot?: string;
  readonly namespace: string;
  readonly watchNamespaces: readonly string[];
  /** Run only these controller plugins (`csv`, `catalog`); all when empty or absent. */
  readonly controllers?: readonly string[];
  /** Registries to pull bundle images from over plain http. */
  readonly insecureRegistries?: readonly string[];
  /** Namespaces that keep their copied CSVs when the OLMConfig disables copies. */
  readonly protectedCopiedCsvNamespaces?: readonly string[];
  /** How long a failing InstallPlan is retried (upstream's `--install-plan-retry-timeout`). */
  readonly installPlanRetryTimeoutMs?: number;
  /** Units of constraint evaluation one namespace resolution may spend. */
  readonly resolutionBudget?: number;
  /** How long a bundle image unpack may take (upstream's `--bundle-unpack-timeout`; 0 for none). */
  readonly bundleUnpackTimeoutMs?: number;
  /** A pull secret tried for every bundle image after the catalog's own. */
  readonly globalPullSecret?: { readonly namespace: string; readonly name: string };
  /** Bounds of one bundle image (`--bundle-max-*`). */
  readonly bundleImageLimits?: Partial<BundleImageLimits>;
  /** Bounds of one image's signature verification (`--signature-max-*`). */
  readonly signatureLimits?: DistributionOptions['signatureLimits'];
  /** The ClusterCatalog controller's content server and catalog directories (`--catalog-server-*`, `--catalog-directory`). */
  readonly clusterCatalog?: ControllerClusterCatalogPluginOptions;
  readonly metricsPort: number;
  readonly metricsHost: string;
  readonly logLevel: LogLevel;
  readonly leaderElection: boolean;
  readonly exitAfterStart?: boolean;
  readonly runFor?: number;
}

/**
 * The plugins `run` boots: the distribution's list with only the selected controllers, electing
 * a leader on a Lease of their own when not all of them run.
 */
export function runPlugins(
  distribution: Distribution,
  options: Pick<
    RunOptions,
    'namespace' | 'watchNamespaces' | 'leaderElection' | 'controllers' | 'insecureRegistries' | 'protectedCopiedCsvNamespaces' | 'installPlanRetryTimeoutMs' | 'bundleUnpackTimeoutMs' | 'globalPullSecret' | 'resolutionBudget' | 'bundleImageLimits' | 'signatureLimits' | 'clusterCatalog'
  >,
): LazyPlugin[] {
  const selected = options.controllers ?? [];
  const base: DistributionOptions = {
    namespace: options.namespace,
    watchNamespaces: options.watchNamespaces,
    leaderElection: options.leaderElection,
    ...(options.insecureRegistries?.length ? { insecureRegistries: options.insecureRegistries } : {}),
    ...(options.protectedCopiedCsvNamespaces?.length ? { protectedCopiedCsvNamespaces: options.protectedCopiedCsvNamespaces } : {}),
    ...(options.installPlanRetryTimeoutMs !== undefined ? { installPlanRetryTimeoutMs: options.installPlanRetryTimeoutMs } : {}),
    ...(options.resolutionBudget !== undefined ? { resolutionBudget: options.resolutionBudget } : {}),
    ...(options.bundleUnpackTimeoutMs !== undefined ? { bundleUnpackTimeoutMs: options.bundleUnpackTimeoutMs } : {}),
    ...(options.globalPullSecret ? { globalPullSecret: options.globalPullSecret } : {}),
    ...(options.bundleImageLimits ? { bundleImageLimits: options.bundleImageLimits } : {}),
    ...(options.signatureLimits ? { signatureLimits: options.signatureLimits } : {}),
    ...(options.clusterCatalog ? { clusterCatalog: options.clusterCatalog } : {}),
  };
  const available = availableControllers(distribution.distributionPlugins(base));
  const plugins = distribution.distributionPlugins({ ...base, leaseName: leaseNameFor(defaultLeaseName, available, selected) });
  return selectControllers(plugins, selected);
}

/**
 * `olm run`: this distribution's controllers against any cluster (a real one in production), with
 * leader election, `/metrics`, `/healthz`, `/readyz` and JSON logs on stderr.
 */
export async function runControllers(
  options: RunOptions,
  out: (text: string) => void = (text) => process.stdout.write(text),
  distribution: Distribution = olmDistribution,
): Promise<void> {
  // Bad flags fail before anything connects.
  const plugins = runPlugins(distribution, options);
  const { startControllers } = await import('../runtime/controllers.js');
  const controllers = await startControllers({
    kubeconfig: (await loadKubeconfig(options)).kubeconfig,
    plugins,
    metricsPort: options.metricsPort,
    metricsHost: options.metricsHost,
    logLevel: options.logLevel,
  });
  try {
    out(`${distribution.name} running controllers ${availableControllers(plugins).join(', ') || '(none)'}: metrics, health and readiness on ${controllers.operationsUrl} (/metrics, /healthz, /readyz)\n`);
    const watched = watchedNamespaces(options.watchNamespaces);
    if (watched.length > 0) {
      out(
        `watching only namespace${watched.length > 1 ? 's' : ''} ${watched.join(', ')}: Subscriptions, InstallPlans and CSVs elsewhere are left alone; ` +
          `CatalogSources in the global catalog namespace ${options.namespace} still serve them\n`,
      );
    }
    await untilStopped(options);
  } finally {
    await controllers.stop();
  }
}

export function registerRunCommand(program: Command, distribution: Distribution = olmDistribution): void {
  const controllers = availableControllers(distribution.distributionPlugins({ namespace: 'olm', leaderElection: false }));
  const command = program.command('run').description('run the OLM controllers against a cluster (a real one in production)');
  addClusterOptions(command, { inCluster: true })
    .option('-n, --namespace <namespace>', 'where OLM runs: its leader-election Lease and the global catalog namespace', 'olm')
    .addOption(new Option('--watch-namespaces <list>', 'reconcile only these namespaces (comma separated)').argParser(parseList).default([], 'all'))
    .addOption(new Option('--controllers <list>', `run only these controllers (comma separated: ${controllers.join(', ')})`).argParser(parseList).default([], 'all'));
  addOperationsOptions(command)
    .option('--insecure-registry <host[:port]>', 'pull bundle images from this registry over plain http (repeatable)', collect, [])
    .addOption(
      new Option('--protected-copied-csv-namespaces <list>', 'namespaces that keep copied CSVs when the OLMConfig sets disableCopiedCSVs (comma separated)')
        .argParser(parseList)
        .default([], 'none'),
    )
    .option('--install-plan-retry-timeout <duration>', 'how long an InstallPlan whose steps fail is retried before it fails (upstream\'s flag; default 1m)')
    .option('--bundle-unpack-timeout <duration>', 'how long a bundle image unpack may take before it fails with DeadlineExceeded (upstream\'s flag; default 10m, 0 for none)')
    .option('--global-pull-secret <namespace/name>', 'a kubernetes.io/dockerconfigjson Secret whose credentials are tried for every bundle image after the catalog\'s own pull secrets')
    .option('--no-leader-election', 'reconcile without electing a leader (only for a single replica)');
  addBundleImageLimitOptions(command);
  addSignatureLimitOptions(command);
  addClusterCatalogOptions(command);
  addResolutionOptions(command);
  addStopOptions(command).action(
    async ({
      catalogDirectory,
      catalogServerAddress,
      catalogServerUrl,
      catalogServerCertDir,
      catalogCacheDir,
      insecureRegistry,
      installPlanRetryTimeout,
      bundleUnpackTimeout,
      globalPullSecret,
      bundleMaxLayers,
      bundleMaxCompressedBytes,
      bundleMaxUncompressedBytes,
      bundleMaxFileBytes,
      bundleMaxManifestBytes,
      bundleMaxFiles,
      signatureMaxSignatures,
      signatureMaxManifestBytes,
      signatureMaxPayloadBytes,
      ...options
    }: Omit<RunOptions, 'leaderElection' | 'insecureRegistries' | 'globalPullSecret' | 'clusterCatalog'> & BundleImageLimitFlagValues & SignatureLimitFlagValues & ClusterCatalogFlagValues & {
      leaderElection: boolean;
      insecureRegistry: string[];
      installPlanRetryTimeout?: string;
      bundleUnpackTimeout?: string;
      globalPullSecret?: string;
    }) => {
      const retryTimeoutMs = await parseDurationFlag('--install-plan-retry-timeout', installPlanRetryTimeout);
      const unpackTimeoutMs = await parseDurationFlag('--bundle-unpack-timeout', bundleUnpackTimeout, { allowZero: true });
      const pullSecret = parseNamespacedName('--global-pull-secret', globalPullSecret);
      const limits = bundleImageLimitsOf({ bundleMaxLayers, bundleMaxCompressedBytes, bundleMaxUncompressedBytes, bundleMaxFileBytes, bundleMaxManifestBytes, bundleMaxFiles });
      const signatureLimits = signatureLimitsOf({ signatureMaxSignatures, signatureMaxManifestBytes, signatureMaxPayloadBytes });
      const clusterCatalog = await clusterCatalogOptionsOf({
        catalogDirectory,
        ...(catalogServerAddress !== undefined ? { catalogServerAddress } : {}),
        ...(catalogServerUrl !== undefined ? { catalogServerUrl } : {}),
        ...(catalogServerCertDir !== undefined ? { catalogServerCertDir } : {}),
        ...(catalogCacheDir !== undefined ? { catalogCacheDir } : {}),
      });
      await runControllers(
        {
          ...options,
          insecureRegistries: insecureRegistry,
          ...(retryTimeoutMs !== undefined ? { installPlanRetryTimeoutMs: retryTimeoutMs } : {}),
          ...(unpackTimeoutMs !== undefined ? { bundleUnpackTimeoutMs: unpackTimeoutMs } : {}),
          ...(pullSecret ? { globalPullSecret: pullSecret } : {}),
          ...(limits ? { bundleImageLimits: limits } : {}),
          ...(signatureLimits ? { signatureLimits } : {}),
          ...(clusterCatalog ? { clusterCatalog } : {}),
        },
        undefined,
        distribution,
      );
    },
  );
}
