import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger, Reconciler } from '@olm/core';
import { OlmError } from '@olm/core';
import type { Registry } from 'prom-client';
import type { BackoffOptions } from './backoff.js';
import { assertReconciler, Controller } from './controller.js';
import { RuntimeErrorCodes } from './errors.js';
import { EventRecorder } from './event-recorder.js';
import { InformerCache, type KindNamespaces, type MetadataOnlyLabelled } from './informer-cache.js';
import type { KubeClient as KubeClientContract } from '@olm/core';
import { KubeClient } from './kube-client.js';
import { LeaderElector } from './leader-election.js';
import { isNamespaceTerminating } from './namespace-termination.js';
import { KubeLeaseStore } from './lease-store.js';
import { silentLogger } from './logger.js';
import { createRuntimeMetrics, type RuntimeMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';

export interface LeaderElectionOptions {
  /** Namespace of the Lease; it must exist. */
  readonly namespace: string;
  /** Name of the Lease: one per set of replicas that must not run at once. */
  readonly name: string;
  /** Default: host name plus a random suffix. */
  readonly identity?: string;
  /** Default 15 s. */
  readonly leaseDurationMs?: number;
  /** Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** Default 2 s. */
  readonly retryPeriodMs?: number;
  /** Hand the lease back on `stop()` so another replica takes over at once. Default true. */
  readonly releaseOnCancel?: boolean;
}

export interface ManagerOptions {
  /** A kubeconfig document, or a loaded client-node `KubeConfig`. Ignored when `client` is given. */
  readonly kubeconfig?: string | KubeConfig;
  readonly context?: string;
  readonly client?: KubeClientContract;
  /** Metrics go here; default a new registry (read it from `manager.metrics.registry`). */
  readonly registry?: Registry;
  readonly logger?: Logger;
  /** Only the leader of this Lease runs reconcilers; without it, this replica always does. */
  readonly leaderElection?: LeaderElectionOptions;
  /** Periodic replay of cached objects to controllers. Default 10 min; 0 turns it off. */
  readonly resyncPeriodMs?: number;
  /** Cache (and so reconcile) one namespace only. Shorthand for `namespaces: [namespace]`. */
  readonly namespace?: string;
  /**
   * Cache (and so reconcile) these namespaces only; default, or empty, all. Namespaced kinds get a
   * list/watch per namespace, merged into one cache; cluster-scoped kinds are not limited.
   */
  readonly namespaces?: readonly string[];
  /**
   * Kinds cached in further namespaces when `namespace(s)` limit the cache, e.g. the CatalogSources
   * of the global catalog namespace, which a catalog controller needs whatever it watches.
   */
  readonly additionalNamespaces?: readonly KindNamespaces[];
  /** Objects of these kinds carrying the label are cached as metadata only. Default: OLM's copied CSVs (`olm.copiedFrom`); empty: none. */
  readonly metadataOnlyLabelled?: readonly MetadataOnlyLabelled[];
  /** Informer restart backoff after watch errors. */
  readonly informerBackoff?: BackoffOptions;
  readonly watchTimeoutSeconds?: number;
  /** How long `start()` waits for the first list of every watched kind. Default 60 s. */
  readonly cacheSyncTimeoutMs?: number;
  /** How long `stop()` lets reconciles in flight finish before aborting their signal (a lost lease aborts it at once). Default 30 s. */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Rate limiter per controller queue; default per-key backoff 5 ms → 5 min, 10 retries/s overall. */
  readonly rateLimiter?: () => RateLimiter;
}

type ManagerState = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

/**
 * Runs controllers over one shared informer cache: `add` reconcilers, then `start`. With leader
 * election only the lease holder runs reconcilers (caches stay warm on every replica, so a new
 * leader starts at once); `stop` drains reconciles in flight, then releases the lease.
 */
export class Manager {
  readonly client: KubeClientContract;
  /** The client this manager made (and closes), when none was given. */
  private readonly ownClient: KubeClient | undefined;
  readonly cache: InformerCache;
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  private readonly options: ManagerOptions;
  private readonly controllers = new Map<string, Controller>();
  private state: ManagerState = 'new';
  private elector: LeaderElector | undefined;
  private electionAbort: AbortController | undefined;
  private election: Promise<void> | undefined;
  private leading = false;

  constructor(options: ManagerOptions) {
    if (!options.client && options.kubeconfig === undefined) {
      throw new OlmError(RuntimeErrorCodes.invalidArgument, 'a manager needs a kubeconfig or a client');
    }
    this.options = options;
    this.ownClient = options.client ? undefined : new KubeClient({ kubeconfig: options.kubeconfig!, context: options.context });
    this.client = options.client ?? this.ownClient!;
    this.logger = options.logger ?? silentLogger;
    this.metrics = createRuntimeMetrics(options.registry);
    this.cache = new InformerCache({
      client: this.client,
      resyncPeriodMs: options.resyncPeriodMs,
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      ...(options.namespaces !== undefined ? { namespaces: options.namespaces } : {}),
      ...(options.additionalNamespaces !== undefined ? { additionalNamespaces: options.additionalNamespaces } : {}),
      ...(options.metadataOnlyLabelled !== undefined ? { metadataOnlyLabelled: options.metadataOnlyLabelled } : {}),
      backoff: options.informerBackoff,
      watchTimeoutSeconds: options.watchTimeoutSeconds,
      logger: this.logger,
    });
  }

  /** True while this replica runs reconcilers (always, once started, without leader election). */
  get isLeader(): boolean {
    return this.leading;
  }

  get controllerNames(): string[] {
    return [...this.controllers.keys()];
  }

  controller(name: string): Controller | undefined {
    return this.controllers.get(name);
  }

  /** Adds a reconciler. Before `start` it runs once the manager starts; after, once its caches sync. */
  add(reconciler: Reconciler, options: { readonly maxConcurrentReconciles?: number } = {}): Controller {
    assertReconciler(reconciler);
    if (this.controllers.has(reconciler.name)) {
      throw new OlmError(RuntimeErrorCodes.invalidArgument, `a reconciler named "${reconciler.name}" was already added; names must be unique`);
    }
    if (this.state === 'stopping' || this.state === 'stopped') {
      throw new OlmError(RuntimeErrorCodes.invalidState, `cannot add reconciler "${reconciler.name}": the manager is ${this.state}`);
    }
    const controller = new Controller({
      reconciler,
      cache: this.cache,
      client: this.client,
      metrics: this.metrics,
      logger: this.logger,
      rateLimiter: this.options.rateLimiter,
      maxConcurrentReconciles: options.maxConcurrentReconciles,
    });
    this.controllers.set(reconciler.name, controller);
    if (this.state === 'running' && this.leading) {
      void this.cache
        .waitForSync(this.options.cacheSyncTimeoutMs)
        .then(() => (this.leading && this.state === 'running' ? controller.start() : undefined))
        .catch((error: unknown) => this.logger.error('late controller did not start', { controller: reconciler.name, error }));
    }
    return controller;
  }

  /** A recorder of core/v1 Events for a component name (`source.component`). */
  eventRecorder(component: string): EventRecorder {
    return new EventRecorder({
      client: this.client,
      component,
      instance: this.identity,
      logger: this.logger,
      isNamespaceTerminating: (namespace) => isNamespaceTerminating(this.cache, namespace),
    });
  }

  get identity(): string {
    return this.options.leaderElection?.identity ?? (this.generatedIdentity ??= `${hostname()}_${randomBytes(4).toString('hex')}`);
  }
  private generatedIdentity: string | undefined;

  /**
   * Starts the informers, waits for their first list, then runs controllers (at once, or when this
   * replica becomes leader). Resolves once caches are synced; leadership may come later.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') {
      throw new OlmError(RuntimeErrorCodes.invalidState, `the manager was already started (it is ${this.state}); create a new one`);
    }
    this.state = 'starting';
    this.cache.start();
    try {
      await this.cache.waitForSync(this.options.cacheSyncTimeoutMs ?? 60_000);
    } catch (error) {
      // stop() called while the caches synced is not a failure of start().
      if (this.state !== 'starting') return;
      await this.stop();
      throw error;
    }
    // stop() may have been called while the caches synced.
    if (this.state !== 'starting') return;
    this.state = 'running';
    const election = this.options.leaderElection;
    if (!election) {
      await this.startControllers();
      return;
    }
    const leaderStatus = this.metrics.leaderElectionStatus.labels({ name: election.name });
    leaderStatus.set(0);
    this.electionAbort = new AbortController();
    this.elector = new LeaderElector({
      store: new KubeLeaseStore(this.client, election.namespace, election.name),
      identity: this.identity,
      leaseDurationMs: election.leaseDurationMs,
      renewDeadlineMs: election.renewDeadlineMs,
      retryPeriodMs: election.retryPeriodMs,
      releaseOnCancel: election.releaseOnCancel,
      logger: this.logger,
      onStartedLeading: async () => {
        leaderStatus.set(1);
        await this.startControllers();
      },
      onStoppedLeading: async () => {
        leaderStatus.set(0);
        // On shutdown reconciles in flight get their grace period; after a lost lease another replica
        // may already lead, so their signal aborts at once (they are still waited for).
        await this.stopControllers(this.state === 'stopping' ? undefined : 0);
      },
    });
    this.election = this.elector.run(this.electionAbort.signal);
  }

  /** Drains reconciles in flight, releases the lease, stops the informers. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return this.stopped;
    this.state = 'stopping';
    this.stopped = (async () => {
      if (this.electionAbort) {
        // The elector stops the controllers (draining) before it releases the lease.
        this.electionAbort.abort();
        await this.election;
      }
      await this.stopControllers();
      await this.cache.stop();
      this.ownClient?.close();
      this.state = 'stopped';
    })();
    return this.stopped;
  }
  private stopped: Promise<void> = Promise.resolve();

  private async startControllers(): Promise<void> {
    this.leading = true;
    await Promise.all([...this.controllers.values()].map((controller) => controller.start()));
  }

  private async stopControllers(timeoutMs?: number): Promise<void> {
    this.leading = false;
    const timeout = timeoutMs ?? this.options.gracefulShutdownTimeoutMs ?? 30_000;
    await Promise.all([...this.controllers.values()].map((controller) => controller.stop(timeout)));
  }
}

export function createManager(options: ManagerOptions): Manager {
  return new Manager(options);
}
