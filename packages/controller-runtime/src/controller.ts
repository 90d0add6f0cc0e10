import type { CachedObject, Logger, ObjectKind, ReconcileRequest, Reconciler } from '@olm/core';
import { describeError, OlmError } from '@olm/core';
import { isTerminalError, RuntimeErrorCodes } from './errors.js';
import { isNamespaceTerminatingError } from './namespace-termination.js';
import { yieldToEventLoop } from './event-loop-yield.js';
import type { InformerCache } from './informer-cache.js';
import type { KubeClient } from '@olm/core';
import { silentLogger } from './logger.js';
import { createRuntimeMetrics, type RuntimeMetrics } from './metrics.js';
import { parseRequestKey, requestFor, requestKey } from './object-key.js';
import { mapToOwner, type RequestMapper } from './owner-mapper.js';
import type { RateLimiter } from './rate-limiter.js';
import { WorkQueue } from './work-queue.js';

export interface ControllerOptions {
  readonly reconciler: Reconciler;
  readonly cache: InformerCache;
  /** Used to learn from discovery whether the reconciled kind is namespaced (for owner mapping). */
  readonly client?: KubeClient;
  readonly metrics?: RuntimeMetrics;
  readonly logger?: Logger;
  /** Default: per-key backoff 5 ms → 5 min and 10 retries/s overall (burst 100). */
  readonly rateLimiter?: () => RateLimiter;
  /** Overrides the reconciler's own `maxConcurrentReconciles`. */
  readonly maxConcurrentReconciles?: number;
}

interface WatchWiring {
  readonly kind: ObjectKind;
  readonly map: (object: CachedObject) => readonly ReconcileRequest[];
}

/**
 * Runs one reconciler: informer events (its kind, owned kinds, mapped kinds) become keys in a
 * rate-limited queue; workers take keys (never one key on two workers) and call `reconcile`.
 * Success forgets the key's backoff; `requeueAfter` re-adds it later; an error retries it with
 * backoff; a `TerminalError` does not. Can be started and stopped repeatedly (leadership changes).
 */
export class Controller {
  readonly name: string;
  readonly reconciler: Reconciler;
  private readonly options: ControllerOptions;
  private readonly cache: InformerCache;
  private readonly metrics: RuntimeMetrics;
  private readonly logger: Logger;
  private readonly concurrency: number;
  private readonly removers: Array<() => void> = [];
  private queue: WorkQueue | undefined;
  private abort: AbortController | undefined;
  private workers: Promise<void>[] = [];
  private ownerNamespaced: boolean | undefined;

  constructor(options: ControllerOptions) {
    this.options = options;
    this.reconciler = options.reconciler;
    this.name = options.reconciler.name;
    this.cache = options.cache;
    this.metrics = options.metrics ?? createRuntimeMetrics();
    this.logger = (options.logger ?? silentLogger).child({ controller: this.name });
    this.concurrency = Math.max(1, options.maxConcurrentReconciles ?? options.reconciler.maxConcurrentReconciles ?? 1);
    this.wire();
  }

  get isRunning(): boolean {
    return this.queue !== undefined && !this.queue.shuttingDown;
  }

  /** Keys waiting in the queue (0 when stopped). */
  get queueLength(): number {
    return this.queue?.length ?? 0;
  }

  /** Queues a request (ignored while stopped: the initial sweep on start covers it). */
  enqueue(request: ReconcileRequest): void {
    this.queue?.add(requestKey(request));
  }

  /** Starts the workers and queues every cached object of the reconciled kind. */
  async start(): Promise<void> {
    if (this.isRunning) return;
    if (this.ownerNamespaced === undefined && this.options.client) {
      try {
        this.ownerNamespaced = (await this.options.client.resourceFor(this.reconciler.for)).namespaced;
      } catch (error) {
        this.logger.warn('could not learn the scope of the reconciled kind; assuming namespaced', { error: describeError(error) });
      }
    }
    const queue = new WorkQueue({
      name: this.name,
      rateLimiter: this.options.rateLimiter?.(),
      metrics: this.metrics.workQueue(this.name),
    });
    this.queue = queue;
    this.abort = new AbortController();
    this.metrics.maxConcurrentReconciles.set({ controller: this.name }, this.concurrency);
    this.series ??= this.bindSeries();
    const accepts = this.reconciler.accepts;
    for (const object of this.cache.list(this.reconciler.for)) {
      if (!accepts || accepts(object)) queue.add(requestKey(requestFor(object)));
    }
    for (const request of this.reconciler.startRequests ?? []) queue.add(requestKey(request));
    const signal = this.abort.signal;
    this.workers = Array.from({ length: this.concurrency }, () => this.work(queue, signal));
    this.logger.info('controller started', { workers: this.concurrency });
  }

  /**
   * Stops taking keys and waits for reconciles in flight (graceful drain). After `timeoutMs` their
   * signal is aborted; the wait still ends only when they return.
   */
  async stop(timeoutMs = 30_000): Promise<void> {
    const queue = this.queue;
    if (!queue) return;
    const draining = queue.drain();
    const timer = setTimeout(() => this.abort?.abort(), timeoutMs);
    await draining;
    clearTimeout(timer);
    this.abort?.abort();
    await Promise.all(this.workers);
    this.workers = [];
    this.queue = undefined;
    this.logger.info('controller stopped');
  }

  /** Removes the informer handlers: the controller no longer hears about changes. */
  dispose(): void {
    for (const remove of this.removers.splice(0)) remove();
  }

  private wire(): void {
    const reconciler = this.reconciler;
    const accepts = reconciler.accepts;
    const self = (object: CachedObject) => (!accepts || accepts(object) ? [requestFor(object)] : []);
    const wirings: WatchWiring[] = [{ kind: reconciler.for, map: self }];
    let ownerMapper: RequestMapper | undefined;
    const toOwner = (object: CachedObject) => {
      // Built lazily: whether the owner is namespaced is known once start() asked discovery.
      ownerMapper ??= mapToOwner(reconciler.for, { ownerNamespaced: this.ownerNamespaced ?? true });
      return ownerMapper(object);
    };
    for (const owned of reconciler.owns ?? []) wirings.push({ kind: owned, map: toOwner });
    for (const watch of reconciler.watches ?? []) {
      const map = watch.map;
      wirings.push({ kind: watch, map: map ? (object) => map.call(watch, object, this.cache) : toOwner });
    }
    for (const source of reconciler.eventSources ?? []) {
      this.removers.push(
        source.subscribe((request) => {
          // Stopped: dropped, the initial sweep on start covers it.
          this.queue?.add(requestKey(request));
        }),
      );
    }
    for (const { kind, map } of wirings) {
      const informer = this.cache.informerFor(kind);
      const enqueue = (object: CachedObject) => {
        if (!this.queue) return;
        let requests: readonly ReconcileRequest[];
        try {
          requests = map(object);
        } catch (error) {
          this.logger.error('watch mapper threw; event ignored', { kind: kind.kind, error: describeError(error) });
          return;
        }
        for (const request of requests) this.queue.add(requestKey(request));
      };
      this.removers.push(
        informer.addEventHandler({
          onAdd: enqueue,
          onUpdate: (oldObject, newObject) => {
            if (oldObject !== newObject && map !== self) enqueue(oldObject);
            enqueue(newObject);
          },
          onDelete: enqueue,
        }),
      );
    }
  }

  private async work(queue: WorkQueue, signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await this.reconcileKey(queue, key, signal);
      } finally {
        queue.done(key);
      }
      await yieldToEventLoop();
    }
  }

  private async reconcileKey(queue: WorkQueue, key: string, signal: AbortSignal): Promise<void> {
    const series = (this.series ??= this.bindSeries());
    const startedAt = performance.now();
    series.activeWorkers.inc();
    const request = parseRequestKey(key);
    const logger = this.logger.child({ request: key });
    try {
      const result = await Promise.resolve().then(() =>
        this.reconciler.reconcile(request, { signal, logger, retries: queue.retries(key), cache: this.cache }),
      );
      queue.forget(key);
      const requeueAfter = result?.requeueAfter;
      if (typeof requeueAfter === 'number' && requeueAfter > 0) {
        queue.addAfter(key, requeueAfter);
        series.requeueAfter.inc();
      } else {
        series.success.inc();
      }
    } catch (error) {
      series.error.inc();
      series.errors.inc();
      if (isNamespaceTerminatingError(error)) {
        // kube refuses new content in a namespace being deleted: retrying cannot help, the namespace is going.
        queue.forget(key);
        logger.info('not retried: the namespace is being deleted', { error: describeError(error) });
      } else if (isTerminalError(error)) {
        series.terminalErrors.inc();
        queue.forget(key);
        logger.error('reconcile failed with a terminal error; not retrying', { error: describeError(error) });
      } else {
        queue.addRateLimited(key);
        logger.warn('reconcile failed; retrying with backoff', {
          error: describeError(error),
          retries: queue.retries(key),
        });
      }
    } finally {
      series.activeWorkers.dec();
      series.reconcileTime.observe((performance.now() - startedAt) / 1000);
    }
  }

  private series: ReturnType<Controller['bindSeries']> | undefined;

  /**
   * The metric children of this controller, bound once (per-call label lookups are costly) and
   * exported at zero from the start, so an alert on a rate of errors has a series before the first.
   */
  private bindSeries() {
    const controller = this.name;
    const total = this.metrics.reconcileTotal;
    const series = {
      success: total.labels({ controller, result: 'success' }),
      requeueAfter: total.labels({ controller, result: 'requeue_after' }),
      error: total.labels({ controller, result: 'error' }),
      errors: this.metrics.reconcileErrors.labels({ controller }),
      terminalErrors: this.metrics.terminalReconcileErrors.labels({ controller }),
      reconcileTime: this.metrics.reconcileTime.labels({ controller }),
      activeWorkers: this.metrics.activeWorkers.labels({ controller }),
    };
    for (const counter of [series.success, series.requeueAfter, series.error, series.errors, series.terminalErrors]) counter.inc(0);
    series.activeWorkers.inc(0);
    return series;
  }
}

/** Checks a reconciler's shape early, with a readable error. */
export function assertReconciler(reconciler: Reconciler): void {
  const problems: string[] = [];
  if (!reconciler || typeof reconciler.name !== 'string' || reconciler.name === '') problems.push('a non-empty name');
  if (!reconciler?.for?.apiVersion || !reconciler.for.kind) problems.push('for: { apiVersion, kind }');
  if (typeof reconciler?.reconcile !== 'function') problems.push('a reconcile() function');
  if (problems.length > 0) {
    throw new OlmError(RuntimeErrorCodes.invalidArgument, `a reconciler needs ${problems.join(', ')}`, {
      details: { name: reconciler?.name },
    });
  }
}
