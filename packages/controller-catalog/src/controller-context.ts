import type { BundlePuller, CatalogSourceType, ImageSignatureVerifier, KubeClient, Logger, NamespaceResolver, RbacGenerator } from '@olm/core';
import type { EventRecorder } from '@olm/controller-runtime';
import type { CatalogEvents } from './catalog-sources/catalog-events.js';
import type { CatalogMetrics } from './catalog-metrics.js';
import type { CatalogSourceConnections } from './catalog-sources/catalog-source-connections.js';
import type { ReconciledCatalogSources } from './catalog-sources/reconciled-catalog-sources.js';

/** Reported after each InstallPlan step is applied (observability and tests). */
export interface StepAppliedEvent {
  readonly namespace: string;
  readonly installPlan: string;
  readonly index: number;
  readonly kind: string;
  readonly name: string;
  readonly status: string;
  readonly signal: AbortSignal;
}

/** What the three reconcilers share. Dependencies are functions so a plugin can supply them on start. */
export interface CatalogControllerContext {
  readonly client: () => KubeClient;
  readonly resolver: () => NamespaceResolver;
  readonly rbacGenerator: () => RbacGenerator;
  readonly sourceTypes: () => ReadonlyMap<string, CatalogSourceType>;
  readonly events: () => EventRecorder;
  readonly connections: CatalogSourceConnections;
  /** What the connections notice on their own (state changes, content gone stale), for the reconcilers' event sources. */
  readonly catalogEvents: CatalogEvents;
  /** Contents of image-only bundles (the `bundlePuller` point); none booted: such bundles cannot be installed. */
  readonly bundlePuller: () => BundlePuller | undefined;
  /** Handed to the source types' workloads, which verify the images they run (the `imageSignatureVerifier` point). */
  readonly imageSignatureVerifier: () => ImageSignatureVerifier | undefined;
  /** How soon a namespace waiting on a bundle unpack is resolved again. */
  readonly bundleUnpackPollMs: number;
  readonly metrics?: CatalogMetrics;
  readonly logger: Logger;
  readonly globalCatalogNamespace: string;
  readonly installPlanRetryTimeoutMs: number;
  /** How often an Installing plan is looked at again. */
  readonly installingRequeueMs: number;
  readonly healthCheckIntervalMs: number;
  readonly unhealthyRetryMs: number;
  readonly fieldManager: string;
  readonly now: () => Date;
  /** The CatalogSources this process has reconciled at least once (resolution waits for the others). */
  readonly reconciledCatalogSources: ReconciledCatalogSources;
  readonly onStepApplied?: (event: StepAppliedEvent) => void | Promise<void>;
}
