import type { KubeConfig } from '@kubernetes/client-node';
import { OlmError, type BundlePuller, type CatalogSourceType, type ImageSignatureVerifier, type KubeClient, type Logger, type NamespaceResolver, type RbacGenerator, type Reconciler } from '@olm/core';
import { EventRecorder, KubeClient as ClientNodeKubeClient, silentLogger, type BackoffOptions } from '@olm/controller-runtime';
import type { Registry } from 'prom-client';
import { createCatalogEvents, type CatalogEvents } from './catalog-sources/catalog-events.js';
import { createCatalogMetrics, type CatalogMetrics } from './catalog-metrics.js';
import { CatalogSourceConnections } from './catalog-sources/catalog-source-connections.js';
import { ReconciledCatalogSources } from './catalog-sources/reconciled-catalog-sources.js';
import { createCatalogSourceReconciler } from './catalog-sources/catalog-source-reconciler.js';
import type { CatalogControllerContext, StepAppliedEvent } from './controller-context.js';
import { defaultInstallPlanRetryTimeoutMs } from './install-plans/install-plan-rules.js';
import { createInstallPlanReconciler } from './install-plans/install-plan-reconciler.js';
import { createNamespaceResolutionReconciler } from './resolution/namespace-resolution-reconciler.js';
import { createSubscriptionReconciler } from './subscriptions/subscription-reconciler.js';

export interface CatalogControllerOptions {
  /** The client the controllers write with; or `kubeconfig` to build one. */
  readonly client?: KubeClient;
  readonly kubeconfig?: string | KubeConfig;
  readonly resolver: NamespaceResolver;
  readonly rbacGenerator: RbacGenerator;
  /** Catalog source types by `spec.sourceType` (the kernel's `catalogSourceTypes` point). */
  readonly catalogSourceTypes: ReadonlyMap<string, CatalogSourceType> | Iterable<CatalogSourceType>;
  /** Upstream's `--namespace`: catalogs here are visible to every namespace. Default `olm`. */
  readonly globalCatalogNamespace?: string;
  /** Upstream's `--install-plan-retry-timeout`. Default 1 minute. */
  readonly installPlanRetryTimeoutMs?: number;
  /** How long catalog content is reused before it is fetched again. Default 30 minutes (upstream's snapshot TTL). */
  readonly catalogCacheTtlMs?: number;
  /** How often a healthy catalog source is probed. Default 30 s. */
  readonly catalogHealthCheckIntervalMs?: number;
  /** How soon an unhealthy catalog source is probed again. Default 5 s. */
  readonly catalogUnhealthyRetryMs?: number;
  /** Delays between failed content loads of one CatalogSource (exponential, capped, with jitter); default `defaultCatalogLoadBackoff` (1 s doubling to 2 min). */
  readonly catalogLoadBackoff?: BackoffOptions;
  /** How often an Installing InstallPlan is looked at again. Default 5 s (upstream). */
  readonly installingRequeueMs?: number;
  /** Unpacks image-only bundles (the `bundlePuller` point, e.g. `@olm/bundle-puller`); without one they fail resolution. */
  readonly bundlePuller?: BundlePuller;
  /** Handed to the source types' workloads, which verify the images they run (the `imageSignatureVerifier` point): catalog images of CatalogSources annotated `olm.operatorframework.io/signature-policy`. */
  readonly imageSignatureVerifier?: ImageSignatureVerifier;
  /** How soon a namespace waiting on a bundle image unpack is resolved again. Default 5 s (upstream). */
  readonly bundleUnpackPollMs?: number;
  /** A prom-client registry for the catalog operator's metrics, or metrics made with `createCatalogMetrics`. */
  readonly metrics?: Registry | CatalogMetrics;
  readonly logger?: Logger;
  /** The clock (tests). */
  readonly clock?: () => Date;
  /** Called after each InstallPlan step is applied. */
  readonly onStepApplied?: (event: StepAppliedEvent) => void | Promise<void>;
}

export interface CatalogController {
  /** `catalogsource`, `subscription`, `namespace-resolution`, `installplan`: add them to a manager. */
  readonly reconcilers: readonly Reconciler[];
  readonly metrics?: CatalogMetrics;
  /** Closes catalog connections. */
  close(): Promise<void>;
}

/**
 * The Catalog Operator as four reconcilers over one shared state (catalog connections and their
 * cached content): CatalogSources, Subscriptions' own status (catalog health, the referenced InstallPlan's
 * state), namespace resolution (triggered by Subscriptions, CatalogSources, OperatorGroups, CSVs and
 * InstallPlans) and InstallPlans.
 */
export function createCatalogController(options: CatalogControllerOptions): CatalogController {
  const { client, close: closeClient } = clientOf(options);
  const given = options.catalogSourceTypes;
  const sourceTypeMap =
    given instanceof Map ? (given as ReadonlyMap<string, CatalogSourceType>) : new Map([...(given as Iterable<CatalogSourceType>)].map((type) => [type.sourceType, type]));
  const sourceTypes = () => sourceTypeMap;
  const givenMetrics = options.metrics;
  const metricsValue: CatalogMetrics | undefined =
    givenMetrics === undefined ? undefined : 'catalogSourceCount' in givenMetrics ? givenMetrics : createCatalogMetrics(givenMetrics);
  const getMetrics = (): CatalogMetrics | undefined => metricsValue;
  const logger = options.logger ?? silentLogger;
  const now = options.clock ?? (() => new Date());
  const catalogEvents = createCatalogEvents(logger);
  const connections = createConnections(options, { client, sourceTypes, logger, now, catalogEvents, metrics: getMetrics });
  const bundleUnpackPollMs = options.bundleUnpackPollMs ?? 5_000;
  let events: EventRecorder | undefined;
  const context: CatalogControllerContext = {
    client,
    resolver: () => options.resolver,
    rbacGenerator: () => options.rbacGenerator,
    sourceTypes,
    events: () => (events ??= new EventRecorder({ client: client(), component: 'catalog-operator', logger })),
    connections,
    catalogEvents,
    bundlePuller: () => options.bundlePuller,
    imageSignatureVerifier: () => options.imageSignatureVerifier,
    bundleUnpackPollMs,
    get metrics() {
      return getMetrics();
    },
    logger,
    now,
    ...settingsOf(options),
  };
  return {
    reconcilers: [
      createCatalogSourceReconciler(context),
      createSubscriptionReconciler(context),
      createNamespaceResolutionReconciler(context),
      createInstallPlanReconciler(context),
    ],
    get metrics() {
      return getMetrics();
    },
    async close() {
      catalogEvents.connectionChanged.clear();
      catalogEvents.contentChanged.clear();
      await connections.close();
      closeClient();
    },
  };
}

/** The given client, or one made from the kubeconfig on first use (closed with the controller). */
function clientOf(options: CatalogControllerOptions): { client: () => KubeClient; close: () => void } {
  let ownClient: ClientNodeKubeClient | undefined;
  const givenClient = options.client;
  if (givenClient !== undefined) return { client: () => givenClient, close: () => undefined };
  return {
    client: () => {
      if (options.kubeconfig === undefined) throw new OlmError('OLM_CATALOG_INVALID_OPTIONS', 'createCatalogController needs a client or a kubeconfig');
      ownClient ??= new ClientNodeKubeClient({ kubeconfig: options.kubeconfig });
      return ownClient;
    },
    close: () => ownClient?.close(),
  };
}

/** The options' timings and names, with their defaults. */
function settingsOf(options: CatalogControllerOptions) {
  return {
    globalCatalogNamespace: options.globalCatalogNamespace ?? 'olm',
    installPlanRetryTimeoutMs: options.installPlanRetryTimeoutMs ?? defaultInstallPlanRetryTimeoutMs,
    installingRequeueMs: options.installingRequeueMs ?? 5_000,
    healthCheckIntervalMs: options.catalogHealthCheckIntervalMs ?? 30_000,
    unhealthyRetryMs: options.catalogUnhealthyRetryMs ?? 5_000,
    fieldManager: 'catalog-operator',
    reconciledCatalogSources: new ReconciledCatalogSources(),
    ...(options.onStepApplied ? { onStepApplied: options.onStepApplied } : {}),
  } satisfies Partial<CatalogControllerContext>;
}

interface Shared {
  readonly client: () => KubeClient;
  readonly logger: Logger;
  readonly now: () => Date;
}

/** One connection per CatalogSource through the booted source types, opened with the controller's client. */
function createConnections(
  options: CatalogControllerOptions,
  { client, sourceTypes, logger, now, catalogEvents, metrics }: Shared & { sourceTypes: () => ReadonlyMap<string, CatalogSourceType>; catalogEvents: CatalogEvents; metrics: () => CatalogMetrics | undefined },
): CatalogSourceConnections {
  return new CatalogSourceConnections({
    sourceTypes,
    client,
    ttlMs: options.catalogCacheTtlMs ?? 30 * 60_000,
    ...(options.catalogLoadBackoff ? { loadBackoff: options.catalogLoadBackoff } : {}),
    now: () => now().getTime(),
    logger,
    onSnapshot: (key) => metrics()?.catalogSourceSnapshots.inc({ namespace: key.namespace, name: key.name }),
    onStateChange: (key) => catalogEvents.connectionChanged.emit(key),
    onContentChanged: (key) => catalogEvents.contentChanged.emit(key),
  });
}
