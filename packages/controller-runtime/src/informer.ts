import type { CachedObject, Logger, ObjectKind } from '@olm/core';
import { describeError, OlmError } from '@olm/core';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { isGone, RuntimeErrorCodes } from './errors.js';
import { yieldToEventLoop } from './event-loop-yield.js';
import { BuiltInIndexes, Indexer, type IndexFunction } from './indexer.js';
import type { KubeClient, WatchEvent } from '@olm/core';
import { silentLogger } from './logger.js';
import { metadataOnlyObject } from './metadata-only.js';
import { objectKey } from './object-key.js';
import { namespacesToWatch } from './namespaces-to-watch.js';

export { namespacesToWatch } from './namespaces-to-watch.js';

/** Called for every change the informer sees; `onUpdate` with `old === current` on a periodic resync. */
export interface InformerEventHandler {
  onAdd?(object: CachedObject): void;
  onUpdate?(oldObject: CachedObject, newObject: CachedObject): void;
  onDelete?(object: CachedObject): void;
}

export interface InformerOptions {
  readonly client: KubeClient;
  /** With `metadataOnly`, a metadata-only informer: it lists and watches PartialObjectMetadata and keeps `metadataOnlyObject`s. */
  readonly kind: ObjectKind;
  /** Watch one namespace only; default all. Shorthand for `namespaces: [namespace]`. */
  readonly namespace?: string;
  /**
   * Watch these namespaces only (default, or empty: all): one list/watch per namespace into one
   * cache. A cluster-scoped kind ignores them and is watched once.
   */
  readonly namespaces?: readonly string[];
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
  /**
   * Objects carrying this label are kept as `metadataOnlyObject`s (the others whole): OLM's copied CSVs,
   * tens of thousands of copies of a few CSVs, of which only names, labels and annotations are read.
   */
  readonly metadataOnlyLabel?: string;
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

/** One list/watch stream of an informer: one namespace, or the whole cluster (undefined). */
interface Stream {
  readonly namespace: string | undefined;
  resourceVersion: string;
  synced: boolean;
  closeWatch?: () => void;
}

/**
 * Lists, then watches one kind, keeping an indexed cache and telling handlers about changes.
 * Unlike client-node's `ListWatch`, which stops for good on any error but 410, it restarts after
 * every error with backoff (relisting, so missed deletes show up), and relists at once on 410 Gone.
 * Limited to several namespaces, it runs one such stream per namespace (each restarting on its own)
 * into the one cache; it is synced once every stream has listed.
 */
export class Informer {
  readonly kind: ObjectKind;
  readonly indexer: Indexer;
  readonly stats: InformerStats = { lists: 0, watches: 0, errors: 0, expired: 0 };
  private readonly client: KubeClient;
  private readonly options: InformerOptions;
  private readonly logger: Logger;
  private readonly handlers = new Set<InformerEventHandler>();
  /** The namespaces asked for; empty for all. */
  private readonly namespaces: readonly string[];
  /** Set once the kind's scope is known: a cluster-scoped kind has one stream whatever the namespaces. */
  private streams: Stream[] = [];
  private synced = false;
  private syncWaiters: Array<{ resolve(): void; reject(error: unknown): void }> = [];
  private running: Promise<void> | undefined;
  private readonly stopController = new AbortController();
  private resyncTimer: NodeJS.Timeout | undefined;

  constructor(options: InformerOptions) {
    this.options = options;
    this.client = options.client;
    this.kind = options.kind;
    this.namespaces = namespacesToWatch(options);
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
      this.resyncTimer = setInterval(() => void this.resync(), period);
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
    for (const stream of this.streams) stream.closeWatch?.();
    await this.running;
  }

  private stoppedError(): OlmError {
    return new OlmError(RuntimeErrorCodes.invalidState, `the informer of ${this.kind.kind} was stopped before it synced`, {
      details: { ...this.kind },
    });
  }

  /** Replays every cached object to handlers as an update, so level-based controllers re-check them. */
  async resync(): Promise<void> {
    if (!this.synced) return;
    // A snapshot, replayed in slices: tens of thousands of objects must not block the event loop.
    for (const object of [...this.indexer.values()]) {
      if (this.isStopped) return;
      this.emit('onUpdate', object, object);
      await yieldToEventLoop();
    }
  }

  private async run(): Promise<void> {
    const backoff = this.newBackoff();
    const signal = this.stopController.signal;
    const namespaces = await this.streamNamespaces(backoff, signal);
    if (namespaces === undefined) return;
    this.streams = namespaces.map((namespace) => ({ namespace, resourceVersion: '', synced: false }));
    await Promise.all(this.streams.map((stream) => this.runStream(stream, stream === this.streams[0] ? backoff : this.newBackoff())));
  }

  private newBackoff(): Backoff {
    return new Backoff(this.options.backoff ?? { initialMs: 200, maxMs: 30_000, jitter: 0.2 });
  }

  /**
   * One stream per watched namespace, or one for the whole cluster when all are watched or the kind
   * is cluster-scoped (asked of discovery, retried with backoff). Undefined once stopped.
   */
  private async streamNamespaces(backoff: Backoff, signal: AbortSignal): Promise<Array<string | undefined> | undefined> {
    if (this.namespaces.length === 0) return [undefined];
    while (!signal.aborted) {
      try {
        const { namespaced } = await this.client.resourceFor(this.kind);
        return namespaced ? [...this.namespaces] : [undefined];
      } catch (error) {
        if (signal.aborted) break;
        this.recordError(error);
        await sleep(backoff.next(), signal);
      }
    }
    return undefined;
  }

  private recordError(error: unknown): void {
    this.stats.errors += 1;
    this.stats.lastError = describeError(error);
    if (isGone(error)) this.stats.expired += 1;
    this.logger.warn('list/watch failed; restarting with backoff', { error: this.stats.lastError });
  }

  private async runStream(stream: Stream, backoff: Backoff): Promise<void> {
    const signal = this.stopController.signal;
    while (!signal.aborted) {
      const startedAt = Date.now();
      let healthy = false;
      try {
        if (stream.resourceVersion === '') await this.listAndReplace(stream);
        const outcome = await this.watchOnce(stream);
        if (outcome.gone) {
          this.stats.expired += 1;
          stream.resourceVersion = '';
        }
        // A watch the server closes at once, again and again, must not spin the loop.
        healthy = outcome.events > 0 || Date.now() - startedAt > 1_000;
      } catch (error) {
        if (signal.aborted) break;
        // Relist after any error: events may have been missed, deletes above all.
        stream.resourceVersion = '';
        this.recordError(error);
      }
      if (healthy) {
        backoff.reset();
      } else if (!signal.aborted) {
        await sleep(backoff.next(), signal);
      }
    }
  }

  private async listAndReplace(stream: Stream): Promise<void> {
    const items: CachedObject[] = [];
    let listResourceVersion = '';
    let continueToken: string | undefined;
    let pageSize: number | undefined = this.options.pageSize ?? 500;
    this.stats.lists += 1;
    for (;;) {
      let page;
      try {
        page = await this.client.list(this.kind, {
          namespace: stream.namespace,
          labelSelector: this.options.labelSelector,
          limit: pageSize,
          continue: continueToken,
          signal: this.stopController.signal,
          ...(this.kind.metadataOnly ? { metadataOnly: true } : {}),
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
    // In slices (handlers run for each object): a list of tens of thousands must not block the event loop.
    for (const object of items) {
      seen.add(objectKey(object));
      this.upsert(object);
      await yieldToEventLoop();
      if (this.isStopped) return;
    }
    // Only this stream's part of the cache: other namespaces have streams of their own.
    const mine = stream.namespace === undefined ? [...this.indexer.values()] : this.indexer.byIndex(BuiltInIndexes.namespace, stream.namespace);
    for (const object of mine) {
      const key = objectKey(object);
      if (!seen.has(key)) {
        const removed = this.indexer.delete(key);
        if (removed) this.emit('onDelete', removed);
        await yieldToEventLoop();
      }
    }
    stream.resourceVersion = listResourceVersion;
    stream.synced = true;
    if (!this.synced && this.streams.every((candidate) => candidate.synced)) {
      this.synced = true;
      const waiters = this.syncWaiters;
      this.syncWaiters = [];
      for (const waiter of waiters) waiter.resolve();
    }
  }

  private async watchOnce(stream: Stream): Promise<{ gone: boolean; events: number }> {
    const path = await this.client.pathFor({ ...this.kind, namespace: stream.namespace });
    if (this.isStopped) return { gone: false, events: 0 };
    const timeoutSeconds = this.options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    this.stats.watches += 1;
    return new Promise((resolve, reject) => {
      let gone = false;
      let events = 0;
      let streamError: WatchEvent['object'] | undefined;
      // If the server never ends the watch (a half-open connection), give up a little after it should have.
      const watchdog = setTimeout(() => stream.closeWatch?.(), (timeoutSeconds + 30) * 1000);
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
            this.emit('onDelete', removed ?? this.kept(event.object));
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
        if (version) stream.resourceVersion = version;
      };
      const onDone = (error: unknown) => {
        clearTimeout(watchdog);
        stream.closeWatch = undefined;
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
            resourceVersion: stream.resourceVersion,
            allowWatchBookmarks: this.options.bookmarks === false ? undefined : 'true',
            timeoutSeconds: String(timeoutSeconds),
            labelSelector: this.options.labelSelector,
          },
          onEvent,
          onDone,
          { metadataOnly: this.kind.metadataOnly === true },
        )
        .then((close) => {
          if (this.isStopped) close();
          else stream.closeWatch = close;
        }, onDone);
    });
  }

  /** What the cache keeps of an object the server sent. */
  private kept(object: CachedObject): CachedObject {
    const label = this.options.metadataOnlyLabel;
    const metadataOnly = this.kind.metadataOnly || (label !== undefined && object.metadata?.labels?.[label] !== undefined);
    return metadataOnly ? metadataOnlyObject(this.kind, object) : object;
  }

  private upsert(received: CachedObject): void {
    const object = this.kept(received);
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
