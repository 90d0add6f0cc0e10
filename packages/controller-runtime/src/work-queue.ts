import { createDefaultRateLimiter, type RateLimiter } from './rate-limiter.js';

/** Hooks a queue reports through; `createRuntimeMetrics` turns them into Prometheus series. */
export interface WorkQueueMetrics {
  added(): void;
  depth(size: number): void;
  /** Seconds a key waited in the queue before a worker took it. */
  queued(seconds: number): void;
  /** Seconds a worker held a key. */
  worked(seconds: number): void;
  retried(): void;
  /** Receives a probe of the work in process, read when metrics are scraped. */
  trackInFlight?(probe: () => InFlightWork): void;
}

/** Keys a worker holds right now, as seconds: what stuck workers look like from outside. */
export interface InFlightWork {
  /** Sum over keys in process of the time each has been held. */
  readonly unfinishedSeconds: number;
  /** The longest any key in process has been held. */
  readonly longestSeconds: number;
}

export interface WorkQueueOptions {
  readonly name?: string;
  readonly rateLimiter?: RateLimiter;
  readonly metrics?: WorkQueueMetrics;
}

/**
 * A de-duplicating, rate-limited work queue of string keys:
 * - a key added many times before a worker takes it is handed out once;
 * - a key is never handed to two workers at once: one re-added while in process waits, and is
 *   handed out again after `done`;
 * - `addRateLimited` delays a retry by the rate limiter (per-key backoff, global bucket);
 * - `shutDown` hands out nothing more; `drain` waits for keys in process.
 */
export class WorkQueue {
  readonly name: string;
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: WorkQueueMetrics | undefined;
  // A FIFO as an array with a moving head, compacted now and then: shift() is O(n).
  private items: string[] = [];
  private head = 0;
  /** Keys waiting to be processed (queued, or re-added while in process). */
  private readonly dirty = new Set<string>();
  private readonly processing = new Map<string, number>();
  private readonly enqueuedAt = new Map<string, number>();
  private readonly delayed = new Map<string, { readonly at: number; readonly timer: NodeJS.Timeout }>();
  private waiters: Array<(key: string | undefined) => void> = [];
  private drainWaiters: Array<() => void> = [];
  private isShutDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? 'queue';
    this.rateLimiter = options.rateLimiter ?? createDefaultRateLimiter();
    this.metrics = options.metrics;
    this.metrics?.trackInFlight?.(() => this.inFlight());
  }

  /** Keys waiting for a worker (not counting delayed ones or those in process). */
  get length(): number {
    return this.items.length - this.head;
  }

  get processingCount(): number {
    return this.processing.size;
  }

  inFlight(): InFlightWork {
    const now = performance.now();
    let unfinishedSeconds = 0;
    let longestSeconds = 0;
    for (const startedAt of this.processing.values()) {
      const seconds = (now - startedAt) / 1000;
      unfinishedSeconds += seconds;
      longestSeconds = Math.max(longestSeconds, seconds);
    }
    return { unfinishedSeconds, longestSeconds };
  }

  get shuttingDown(): boolean {
    return this.isShutDown;
  }

  add(key: string): void {
    if (this.isShutDown || this.dirty.has(key)) return;
    this.metrics?.added();
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Adds the key after a delay; of several pending delays for one key, the earliest wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.isShutDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.delayed.set(key, { at, timer });
  }

  /** Adds the key after the rate limiter's delay for it: use after a failure. */
  addRateLimited(key: string): void {
    if (this.isShutDown) return;
    this.metrics?.retried();
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Clears the key's failure history: use after a success. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  retries(key: string): number {
    return this.rateLimiter.retries(key);
  }

  /** The next key to process, waiting for one; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    if (this.isShutDown) return Promise.resolve(undefined);
    const key = this.take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks the key processed; if it was re-added meanwhile it is queued again now. */
  done(key: string): void {
    const startedAt = this.processing.get(key);
    if (startedAt === undefined) return;
    this.processing.delete(key);
    this.metrics?.worked((performance.now() - startedAt) / 1000);
    if (this.dirty.has(key) && !this.isShutDown) this.push(key);
    if (this.processing.size === 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Stops handing out keys and drops queued and delayed ones; keys in process may still finish. */
  shutDown(): void {
    if (this.isShutDown) return;
    this.isShutDown = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.items = [];
    this.head = 0;
    this.dirty.clear();
    this.enqueuedAt.clear();
    this.metrics?.depth(0);
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve(undefined);
  }

  /** Shuts down, then resolves once every key in process is done. */
  drain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private push(key: string): void {
    this.enqueuedAt.set(key, performance.now());
    const waiter = this.waiters.shift();
    if (waiter) {
      // Hand the key straight to a waiting worker; it never sits in the FIFO.
      waiter(this.claim(key));
      return;
    }
    this.items.push(key);
    this.metrics?.depth(this.length);
  }

  private take(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head]!;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.metrics?.depth(this.length);
    return this.claim(key);
  }

  private claim(key: string): string {
    this.dirty.delete(key);
    const now = performance.now();
    const enqueued = this.enqueuedAt.get(key);
    this.enqueuedAt.delete(key);
    if (enqueued !== undefined) this.metrics?.queued((now - enqueued) / 1000);
    this.processing.set(key, now);
    return key;
  }
}
