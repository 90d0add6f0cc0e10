import type { CachedObject, Logger, ObjectKind } from '@olm/core';
import { describeError, OlmError } from '@olm/core';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { isGone, RuntimeErrorCodes } from './errors.js';
import { Indexer, type IndexFunction } from './indexer.js';
import type { KubeClient, WatchEvent } from './kube-client.js';
import { silentLogger } from './logger.js';
import { objectKey } from './object-key.js';

/** Called for every change the informer sees; `onUpdate` with `old === current` on a periodic resync. */
export interface InformerEventHandler {
  onAdd?(object: CachedObject): void;
  onUpdate?(oldObject: CachedObject, newObject: CachedObject): void;
  onDelete?(object: CachedObject): void;
}

export interface InformerOptions {
  readonly client: KubeClient;
  readonly kind: ObjectKind;
  /** Watch one namespace only; default all. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** Replays every cached object to handlers as an update this often; 0 turns it off. Default 0. */
  readonly resyncPeriodMs?: number;
  /** Delay between restarts after errors. Default 200 ms doubling to 30 s, with 20 % jitter. */
  readonly backoff?: BackoffOptions;
  /** Objects per list page. Default 500. */
  readonly pageSize?: number;
  /** Asks the server to end each watch after this long (re-watched at once). Default 300–600 s at random. */
  readonly watchTimeoutSeconds?: number;
  /** Ask for BOOKMARK events, which move the resume point forward without changes. Default true. */
  readonly bookmarks?: boolean;
  readonly indexes?: Readonly<Record<string, IndexFunction>>;
  readonly logger?: Logger;
}

/** Counters that show what the informer went through; handy in tests and status pages. */
export interface InformerStats {
  lists: number;
  watches: number;
  /** Restarts after an error (connection lost, server gone, stream error). */
  errors: number;
  /** Relists forced by 410 Gone. */
  expired: number;
  lastError?: string;
}

/**
 * Lists, then watches one kind, keeping an indexed cache and telling handlers about changes.
 * Unlike client-node's `ListWatch`, which stops for good on any error but 410, it restarts after
 * every error with backoff (relisting, so missed deletes show up), and relists at once on 410 Gone.
 */
export class Informer {
  readonly kind: ObjectKind;
  readonly indexer: Indexer;
  readonly stats: InformerStats = { lists: 0, watches: 0, errors: 0, expired: 0 };
  private readonly client: KubeClient;
  private readonly options: InformerOptions;
  private readonly logger: Logger;
  private readonly handlers = new Set<InformerEventHandler>();
  private resourceVersion = '';
  private synced = false;
  private syncWaiters: Array<{ resolve(): void; reject(error: unknown): void }> = [];
  private running: Promise<void> | undefined;
  private readonly stopController = new AbortController();
  private closeWatch: (() => void) | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;

  constructor(options: InformerOptions) {
    this.options = options;
    this.client = options.client;
    this.kind = options.kind;
    this.indexer = new Indexer(options.indexes);
    this.logger = (options.logger ?? silentLogger).child({ informer: `${options.kind.apiVersion}/${options.kind.kind}` });
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  get isStopped(): boolean {
    return this.stopController.signal.aborted;
  }

  /**
   * Registers a handler and returns a function that removes it. A handler added after the first
   * sync is first told about every cached object as an add, so late handlers miss nothing.
   */
  addEventHandler(handler: InformerEventHandler): () => void {
    this.handlers.add(handler);
    if (this.synced) for (const object of this.indexer.values()) this.call(handler, 'onAdd', object);
    return () => this.handlers.delete(handler);
  }

  /** Starts the list/watch loop in the background; safe to call twice. */
  start(): void {
    if (this.running || this.isStopped) return;
    this.running = this.run();
    const period = this.options.resyncPeriodMs ?? 0;
    if (period > 0) {
      this.resyncTimer = setInterval(() => this.resync(), period);
      this.resyncTimer.unref();
    }
  }

  /** Resolves once the first list is in the cache; rejects with `OLM_RUNTIME_CACHE_SYNC_TIMEOUT` after `timeoutMs`. */
  waitForSync(timeoutMs = 60_000): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (this.isStopped) return Promise.reject(this.stoppedError());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.syncWaiters = this.syncWaiters.filter((candidate) => candidate !== waiter);
        reject(
          new OlmError(
            RuntimeErrorCodes.cacheSyncTimeout,
            `the cache of ${this.kind.kind} (${this.kind.apiVersion}) did not sync within ${timeoutMs} ms${
              this.stats.lastError ? `; last error: ${this.stats.lastError}` : ''
            }`,
            { details: { ...this.kind, lastError: this.stats.lastError } },
          ),
        );
      }, timeoutMs);
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.syncWaiters.push(waiter);
    });
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const waiter of waiters) waiter.reject(this.stoppedError());
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.closeWatch?.();
    await this.running;
  }

  private stoppedError(): OlmError {
    return new OlmError(RuntimeErrorCodes.invalidState, `the informer of ${this.kind.kind} was stopped before it synced`, {
      details: { ...this.kind },
    });
  }

  /** Replays every cached object to handlers as an update, so level-based controllers re-check them. */
  resync(): void {
    if (!this.synced) return;
    for (const object of this.indexer.values()) this.emit('onUpdate', object, object);
  }

  private async run(): Promise<void> {
    const backoff = new Backoff(this.options.backoff ?? { initialMs: 200, maxMs: 30_000, jitter: 0.2 });
    const signal = this.stopController.signal;
    while (!signal.aborted) {
      const startedAt = Date.now();
      let healthy = false;
      try {
        if (this.resourceVersion === '') await this.listAndReplace();
        const outcome = await this.watchOnce();
        if (outcome.gone) {
          this.stats.expired += 1;
          this.resourceVersion = '';
        }
        // A watch the server closes at once, again and again, must not spin the loop.
        healthy = outcome.events > 0 || Date.now() - startedAt > 1_000;
      } catch (error) {
        if (signal.aborted) break;
        this.stats.errors += 1;
        this.stats.lastError = describeError(error);
        if (isGone(error)) this.stats.expired += 1;
        // Relist after any error: events may have been missed, deletes above all.
        this.resourceVersion = '';
        this.logger.warn('list/watch failed; restarting with backoff', { error: this.stats.lastError });
      }
      if (healthy) {
        backoff.reset();
      } else if (!signal.aborted) {
        await sleep(backoff.next(), signal);
      }
    }
  }

  private async listAndReplace(): Promise<void> {
    const items: CachedObject[] = [];
    let listResourceVersion = '';
    let continueToken: string | undefined;
    let pageSize: number | undefined = this.options.pageSize ?? 500;
    this.stats.lists += 1;
    for (;;) {
      let page;
      try {
        page = await this.client.list(this.kind, {
          namespace: this.options.namespace,
          labelSelector: this.options.labelSelector,
          limit: pageSize,
          continue: continueToken,
          signal: this.stopController.signal,
        });
      } catch (error) {
        if (continueToken && isGone(error)) {
          // The continue token expired mid-way: list everything in one go instead.
          items.length = 0;
          listResourceVersion = '';
          continueToken = undefined;
          pageSize = undefined;
          continue;
        }
        throw error;
      }
      // All pages of one list share the first page's snapshot; resume watching from it.
      if (listResourceVersion === '') listResourceVersion = page.resourceVersion;
      for (const item of page.items) items.push(item);
      continueToken = page.continue;
      if (!continueToken || this.isStopped) break;
    }
    if (this.isStopped) return;
    const seen = new Set<string>();
    for (const object of items) {
      seen.add(objectKey(object));
      this.upsert(object);
    }
    for (const key of [...this.indexer.keys()]) {
      if (!seen.has(key)) {
        const removed = this.indexer.delete(key);
        if (removed) this.emit('onDelete', removed);
      }
    }
    this.resourceVersion = listResourceVersion;
    if (!this.synced) {
      this.synced = true;
      const waiters = this.syncWaiters;
      this.syncWaiters = [];
      for (const waiter of waiters) waiter.resolve();
    }
  }

  private async watchOnce(): Promise<{ gone: boolean; events: number }> {
    const path = await this.client.pathFor({ ...this.kind, namespace: this.options.namespace });
    if (this.isStopped) return { gone: false, events: 0 };
    const timeoutSeconds = this.options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    this.stats.watches += 1;
    return new Promise((resolve, reject) => {
      let gone = false;
      let events = 0;
      let streamError: WatchEvent['object'] | undefined;
      // If the server never ends the watch (a half-open connection), give up a little after it should have.
      const watchdog = setTimeout(() => this.closeWatch?.(), (timeoutSeconds + 30) * 1000);
      watchdog.unref();
      const onEvent = (event: WatchEvent) => {
        events += 1;
        switch (event.type) {
          case 'ADDED':
          case 'MODIFIED':
            this.upsert(event.object);
            break;
          case 'DELETED': {
            const removed = this.indexer.delete(objectKey(event.object));
            this.emit('onDelete', removed ?? event.object);
            break;
          }
          case 'BOOKMARK':
            break;
          case 'ERROR':
            if (event.object.code === 410) gone = true;
            else streamError = event.object;
            return;
          default:
            return;
        }
        const version = event.object.metadata?.resourceVersion;
        if (version) this.resourceVersion = version;
      };
      const onDone = (error: unknown) => {
        clearTimeout(watchdog);
        this.closeWatch = undefined;
        if (error && !gone) reject(error);
        else if (streamError && !gone) {
          reject(
            new OlmError(RuntimeErrorCodes.kubeApi, `watch of ${this.kind.kind} failed: ${streamError.message ?? 'error event'}`, {
              details: { statusCode: streamError.code, reason: streamError.reason },
            }),
          );
        } else resolve({ gone, events });
      };
      this.client
        .watch(
          path,
          {
            resourceVersion: this.resourceVersion,
            allowWatchBookmarks: this.options.bookmarks === false ? undefined : 'true',
            timeoutSeconds: String(timeoutSeconds),
            labelSelector: this.options.labelSelector,
          },
          onEvent,
          onDone,
        )
        .then((close) => {
          if (this.isStopped) close();
          else this.closeWatch = close;
        }, onDone);
    });
  }

  private upsert(object: CachedObject): void {
    const key = objectKey(object);
    const previous = this.indexer.get(key);
    const version = object.metadata?.resourceVersion;
    if (previous && version !== undefined && previous.metadata?.resourceVersion === version) return;
    this.indexer.upsert(object);
    if (previous) this.emit('onUpdate', previous, object);
    else this.emit('onAdd', object);
  }

  private emit(event: 'onAdd' | 'onDelete', object: CachedObject): void;
  private emit(event: 'onUpdate', oldObject: CachedObject, newObject: CachedObject): void;
  private emit(event: keyof InformerEventHandler, first: CachedObject, second?: CachedObject): void {
    for (const handler of this.handlers) this.call(handler, event, first, second);
  }

  private call(handler: InformerEventHandler, event: keyof InformerEventHandler, first: CachedObject, second?: CachedObject): void {
    try {
      if (event === 'onUpdate') handler.onUpdate?.(first, second ?? first);
      else handler[event]?.(first);
    } catch (error) {
      // One bad handler or odd object must not stop the informer for everybody else.
      this.logger.error('informer event handler threw', { error: describeError(error), object: objectKey(first) });
    }
  }
}
