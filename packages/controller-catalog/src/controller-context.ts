import type { BundlePuller, CatalogSourceType, KubeClient, Logger, NamespaceResolver, RbacGenerator } from '@olm/core';
import type { EventRecorder } from '@olm/controller-runtime';
import type { CatalogEvents } from './catalog-events.js';
import type { CatalogImageVerification } from './catalog-image-signature.js';
import type { CatalogMetrics } from './catalog-metrics.js';
import type { CatalogSourceConnections } from './catalog-source-connections.js';
import type { RegistryPodSettings } from './registry-pod.js';
import type { RegistryServiceRouting } from './registry-service-address.js';

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
  /** Image catalogs with a signature policy: their catalog image verified, their registry Pod pinned to the digest. */
  readonly catalogImages: CatalogImageVerification;
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
  /** Namespaces that hold Subscriptions, learnt from watch events (a global catalog's change resolves them all). */
  readonly subscriptionNamespaces: Set<string>;
  /** `namespace/name` of the CatalogSources this process has reconciled at least once (resolution waits for the others). */
  readonly reconciledCatalogSources: Set<string>;
  readonly onStepApplied?: (event: StepAppliedEvent) => void | Promise<void>;
  /** The images and user of image catalogs' registry Pods (the security default comes from each namespace). */
  readonly registryPod: Omit<RegistryPodSettings, 'defaultSecurityContextConfig'>;
  /** How an image catalog's registry Service is dialed. */
  readonly registryServiceRouting: RegistryServiceRouting;
}
