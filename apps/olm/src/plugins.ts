import type { BundleImageLimits } from '@olm/bundle-puller';
import type { ControllerClusterCatalogPluginOptions } from '@olm/controller-cluster-catalog';
import type { ControllerClusterExtensionPluginOptions } from '@olm/controller-cluster-extension';
import type { SignatureLimits } from '@olm/image-signatures';
import { usageError } from './cli-errors.js';
import { lazyPlugin, type LazyPlugin } from './lazy-plugin.js';
import bundlePullerPackage from '@olm/bundle-puller/package.json' with { type: 'json' };
import controllerCatalogPackage from '@olm/controller-catalog/package.json' with { type: 'json' };
import controllerCsvPackage from '@olm/controller-csv/package.json' with { type: 'json' };
import controllerOperatorConditionsPackage from '@olm/controller-operator-conditions/package.json' with { type: 'json' };
import controllerOperatorGroupsPackage from '@olm/controller-operator-groups/package.json' with { type: 'json' };
import controllerOperatorsPackage from '@olm/controller-operators/package.json' with { type: 'json' };
import controllerClusterCatalogPackage from '@olm/controller-cluster-catalog/package.json' with { type: 'json' };
import controllerClusterExtensionPackage from '@olm/controller-cluster-extension/package.json' with { type: 'json' };
import controllerRuntimePackage from '@olm/controller-runtime/package.json' with { type: 'json' };
import pluginCelPackage from '@olm/plugin-cel/package.json' with { type: 'json' };
import pluginRbacPackage from '@olm/plugin-rbac/package.json' with { type: 'json' };
import pluginSatLogicSolverPackage from '@olm/plugin-sat-logic-solver/package.json' with { type: 'json' };
import registryPackage from '@olm/registry/package.json' with { type: 'json' };
import resolverPackage from '@olm/resolver/package.json' with { type: 'json' };
import imageSignaturesPackage from '@olm/image-signatures/package.json' with { type: 'json' };

// Each entry names a plugin (id, and the version its package.json says) and imports its package
// only when a command boots it: see lazy-plugin.ts. Order does not matter: the kernel sorts plugins by their dependencies.

/** The plugins that need no cluster: catalogs, resolution, constraint kinds and RBAC policy (`olm resolve`). */
export const resolutionPlugins: readonly LazyPlugin[] = [
  lazyPlugin('registry', registryPackage.version, async () => (await import('@olm/registry')).registryPlugin),
  resolverEntry(),
  lazyPlugin('plugin-sat-logic-solver', pluginSatLogicSolverPackage.version, async () => (await import('@olm/plugin-sat-logic-solver')).satLogicSolverPlugin),
  lazyPlugin('plugin-cel', pluginCelPackage.version, async () => (await import('@olm/plugin-cel')).celPlugin),
  lazyPlugin('plugin-rbac', pluginRbacPackage.version, async () => (await import('@olm/plugin-rbac')).rbacPlugin),
];

/** The resolver plugin, with a namespace resolution budget (`--resolution-budget`; the resolver's default otherwise). */
export function resolverEntry(resolutionBudget?: number): LazyPlugin {
  return lazyPlugin('resolver', resolverPackage.version, async () =>
    (await import('@olm/resolver')).createResolverPlugin(resolutionBudget !== undefined ? { limits: { evaluationUnits: resolutionBudget } } : {}),
  );
}

/** A plugin list with its `resolver` entry given the distribution's resolution budget. */
export function withResolutionBudget(plugins: readonly LazyPlugin[], options: Pick<DistributionOptions, 'resolutionBudget'>): LazyPlugin[] {
  return plugins.map((entry) => (entry.id === 'resolver' && options.resolutionBudget !== undefined ? resolverEntry(options.resolutionBudget) : entry));
}

/** What a running distribution is told at start (from `olm run` / `olm up` flags). */
export interface DistributionOptions {
  /** Where OLM runs: its leader-election Lease and the global catalog namespace. */
  readonly namespace: string;
  /**
   * Reconcile only these namespaces (all when empty), as upstream's `--watchedNamespaces`. The
   * catalog controller also sees the CatalogSources of the global catalog namespace (`namespace`),
   * which serve every namespace.
   */
  readonly watchNamespaces?: readonly string[];
  /** Elect one active replica through a Lease (off for a single local process). */
  readonly leaderElection: boolean;
  /** The leader-election Lease; default `olm-controllers`. `olm run --controllers` names one per controller set. */
  readonly leaseName?: string;
  /** Registries bundle images are pulled from over plain http (besides localhost, always allowed). */
  readonly insecureRegistries?: readonly string[];
  /** Namespaces that keep copied CSVs when the OLMConfig disables copies (upstream's `--protectedCopiedCSVNamespaces`). */
  readonly protectedCopiedCsvNamespaces?: readonly string[];
  /** How long an InstallPlan whose steps fail is retried before it fails (upstream's `--install-plan-retry-timeout`, default 1 minute). */
  readonly installPlanRetryTimeoutMs?: number;
  /** Units of constraint evaluation one namespace resolution may spend (`--resolution-budget`; the resolver's default otherwise). */
  readonly resolutionBudget?: number;
  /** How long one bundle image unpack may take (upstream's `--bundle-unpack-timeout`, default 10 minutes; 0 for none). */
  readonly bundleUnpackTimeoutMs?: number;
  /** A pull secret tried for every bundle image after the catalog's own (OLM v1's `--global-pull-secret`). */
  readonly globalPullSecret?: { readonly namespace: string; readonly name: string };
  /** Bounds of one bundle image (`--bundle-max-layers`, `--bundle-max-uncompressed-bytes`, …); the puller's defaults otherwise. */
  readonly bundleImageLimits?: Partial<BundleImageLimits>;
  /** Bounds of one image's signature verification (`--signature-max-signatures`, …); the verifier's defaults otherwise. */
  readonly signatureLimits?: Partial<SignatureLimits>;
  /** The ClusterCatalog controller (OLM v1): its content server, base URL and catalog directories (`--catalog-server-*`, `--catalog-directory`). */
  readonly clusterCatalog?: ControllerClusterCatalogPluginOptions;
  /** The ClusterExtension controller (OLM v1): the CA it trusts catalogd by (default the in-process content server's), its limits. */
  readonly clusterExtension?: ControllerClusterExtensionPluginOptions;
}

/** The Lease the controllers elect a leader on when every controller runs in one process. */
export const defaultLeaseName = 'olm-controllers';

/**
 * The controller runtime and the controllers (CSV with OperatorGroups, OperatorConditions and Operators, catalog with its bundle puller), configured from the run/up flags.
 * Exported so that other distributions (`apps/olm-minimal`) reuse it and only change the rest.
 */
export function controllerPlugins(options: DistributionOptions): LazyPlugin[] {
  const watched = watchedNamespaces(options.watchNamespaces ?? []);
  return [
    lazyPlugin('controller-runtime', controllerRuntimePackage.version, async () => {
      const [{ createControllerRuntimePlugin }, { catalogControllerAdditionalNamespaces }] = await Promise.all([import('@olm/controller-runtime'), import('@olm/controller-catalog')]);
      return createControllerRuntimePlugin({
        leaderElection: options.leaderElection ? { namespace: options.namespace, name: options.leaseName ?? defaultLeaseName } : false,
        ...(watched.length > 0 ? { namespaces: watched, additionalNamespaces: catalogControllerAdditionalNamespaces(options.namespace) } : {}),
      });
    }),
    lazyPlugin('controller-csv', controllerCsvPackage.version, async () =>
      (await import('@olm/controller-csv')).createControllerCsvPlugin(
        options.protectedCopiedCsvNamespaces?.length ? { protectedCopiedCsvNamespaces: options.protectedCopiedCsvNamespaces } : {},
      ),
    ),
    // Upstream runs these in the OLM operator's process: they come with `csv`. The CSV controller finds its
    // `deployment` install strategy through the `installStrategies` point, as it would any other.
    lazyPlugin('install-strategy-deployment', controllerCsvPackage.version, async () => (await import('@olm/controller-csv')).deploymentInstallStrategyPlugin, {
      runsWith: 'csv',
    }),
    lazyPlugin('controller-operator-groups', controllerOperatorGroupsPackage.version, async () => (await import('@olm/controller-operator-groups')).controllerOperatorGroupsPlugin, {
      runsWith: 'csv',
    }),
    lazyPlugin('controller-operator-conditions', controllerOperatorConditionsPackage.version, async () => (await import('@olm/controller-operator-conditions')).controllerOperatorConditionsPlugin, {
      runsWith: 'csv',
    }),
    lazyPlugin('controller-operators', controllerOperatorsPackage.version, async () => (await import('@olm/controller-operators')).controllerOperatorsPlugin, { runsWith: 'csv' }),
    lazyPlugin('controller-catalog', controllerCatalogPackage.version, async () =>
      (await import('@olm/controller-catalog')).createControllerCatalogPlugin({
        globalCatalogNamespace: options.namespace,
        ...(options.installPlanRetryTimeoutMs !== undefined ? { installPlanRetryTimeoutMs: options.installPlanRetryTimeoutMs } : {}),
      }),
    ),
    // OLM v1's ClusterCatalogs (catalogd upstream): with the catalog operator, which serves catalogs too.
    lazyPlugin(
      'controller-cluster-catalog',
      controllerClusterCatalogPackage.version,
      async () =>
        (await import('@olm/controller-cluster-catalog')).createControllerClusterCatalogPlugin({
          ...(options.insecureRegistries?.length ? { insecureRegistries: options.insecureRegistries } : {}),
          ...options.clusterCatalog,
        }),
      { runsWith: 'catalog' },
    ),
    // OLM v1's ClusterExtensions (operator-controller upstream): with the catalog operator, beside the
    // ClusterCatalogs it reads over HTTPS; revision records are kept in OLM's namespace.
    lazyPlugin(
      'controller-cluster-extension',
      controllerClusterExtensionPackage.version,
      async () =>
        (await import('@olm/controller-cluster-extension')).createControllerClusterExtensionPlugin({
          revisionNamespace: options.namespace,
          ...options.clusterExtension,
        }),
      { runsWith: 'catalog' },
    ),
    // The catalog operator's bundle images: pulled by the process itself (upstream runs unpack Jobs).
    lazyPlugin('bundle-puller', bundlePullerPackage.version, async () =>
      (await import('@olm/bundle-puller')).createBundlePullerPlugin({
        ...(options.insecureRegistries?.length ? { insecureRegistries: options.insecureRegistries } : {}),
        ...(options.bundleUnpackTimeoutMs !== undefined ? { bundleUnpackTimeoutMs: options.bundleUnpackTimeoutMs } : {}),
        ...(options.globalPullSecret ? { globalPullSecret: options.globalPullSecret } : {}),
        ...(options.bundleImageLimits ? { bundleImageLimits: options.bundleImageLimits } : {}),
      }),
    ),
    // Catalogs annotated olm.operatorframework.io/signature-policy: their policies are ConfigMaps in OLM's namespace.
    lazyPlugin('image-signatures', imageSignaturesPackage.version, async () =>
      (await import('@olm/image-signatures')).createImageSignaturesPlugin({
        policyNamespace: options.namespace,
        ...(options.signatureLimits ? { signatureLimits: options.signatureLimits } : {}),
        ...(options.insecureRegistries?.length ? { registry: { insecureRegistries: options.insecureRegistries } } : {}),
      }),
    ),
  ];
}

const namespaceName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The distinct namespaces of `--watch-namespaces` (empty: all), each checked to be a namespace name. */
export function watchedNamespaces(namespaces: readonly string[]): string[] {
  for (const namespace of namespaces) {
    if (namespace.length > 63 || !namespaceName.test(namespace)) {
      throw usageError(
        `--watch-namespaces: ${JSON.stringify(namespace)} is not a namespace name (at most 63 lowercase letters, digits and '-', ` +
          "starting and ending with a letter or digit); give a comma-separated list such as 'team-a,team-b'",
      );
    }
  }
  return [...new Set(namespaces)];
}

/**
 * The composition root: the one list of plugins this distribution boots.
 * A platform team edits this list (or writes its own) to swap CEL support, the SAT backend
 * or the RBAC generator; no other package changes. `apps/olm-minimal` shows a second composition.
 */
export function distributionPlugins(options: DistributionOptions): LazyPlugin[] {
  return [...withResolutionBudget(resolutionPlugins, options), ...controllerPlugins(options)];
}

/** The plugins with default options, as `olm version` lists them. */
export const plugins: readonly LazyPlugin[] = distributionPlugins({ namespace: 'olm', leaderElection: true });
