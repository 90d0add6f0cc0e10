import type { Logger } from '@olm/core';
import { formatMicroTime } from '@olm/go-format';
import { describeError } from '@olm/core';
import { sleep } from './backoff.js';
import { silentLogger } from './logger.js';

/** The fields of a coordination.k8s.io/v1 Lease spec that leader election uses. */
export interface LeaseRecord {
  /** Who leads; '' once released. */
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions: number;
}

/**
 * Where the lease lives, with optimistic concurrency: `update` must fail when `version` is stale,
 * `create` when the lease exists. `KubeLeaseStore` keeps it in a Lease object.
 */
export interface LeaseStore {
  get(): Promise<{ readonly record: LeaseRecord; readonly version: string } | undefined>;
  create(record: LeaseRecord): Promise<string>;
  update(record: LeaseRecord, version: string): Promise<string>;
  /** For logs: `namespace/name`. */
  readonly description: string;
}

export interface LeaderElectorOptions {
  readonly store: LeaseStore;
  /** This replica's unique identity (host name plus a random suffix, by default in the manager). */
  readonly identity: string;
  /** How long a lease stays valid without renewal; a follower takes over after it. Default 15 s. */
  readonly leaseDurationMs?: number;
  /** The leader steps down when it could not renew for this long; keep it below the lease duration. Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** How often to try to acquire or renew. Default 2 s. */
  readonly retryPeriodMs?: number;
  /** Called on becoming leader; `signal` aborts when leadership ends. Not awaited by the elector. */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called, and awaited, when leadership ends (lost or given up), before the lease is released. */
  readonly onStoppedLeading?: () => void | Promise<void>;
  /** Called whenever the observed leader changes (including to this replica). */
  readonly onNewLeader?: (identity: string) => void;
  /** Hand the lease back on shutdown so a follower need not wait out the lease. Default true. */
  readonly releaseOnCancel?: boolean;
  readonly logger?: Logger;
  readonly now?: () => number;
}

/**
 * Leader election on a lease: a replica acquires the lease when nobody holds it or its holder has
 * not renewed it for the lease duration (measured on this replica's clock from when it last saw the
 * record change, so clock skew between replicas does not matter), then renews it every retry period.
 */
export class LeaderElector {
  private readonly options: LeaderElectorOptions;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private observed: { record: LeaseRecord; version: string; at: number } | undefined;
  private leading = false;
  private lastLeader = '';

  constructor(options: LeaderElectorOptions) {
    this.options = options;
    this.logger = (options.logger ?? silentLogger).child({ lease: options.store.description, identity: options.identity });
    this.now = options.now ?? Date.now;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = Math.min(options.renewDeadlineMs ?? 10_000, this.leaseDurationMs);
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** The holder this replica last saw in the lease ('' when none). */
  get leader(): string {
    return this.lastLeader;
  }

  /**
   * Campaigns until `signal` aborts: acquire, lead while renewals succeed, campaign again after a
   * loss. On abort it stops leading (awaiting `onStoppedLeading`), releases the lease, and resolves.
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.tryAcquireOrRenew())) {
        await sleep(this.retryPeriodMs * (0.8 + Math.random() * 0.4), signal);
        continue;
      }
      await this.lead(signal);
    }
  }

  /** One attempt to take or keep the lease; true when this replica holds it afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.now();
    const nowText = formatMicroTime(new Date(now));
    const durationSeconds = Math.max(1, Math.ceil(this.leaseDurationMs / 1000));
    const identity = this.options.identity;
    try {
      const current = await this.options.store.get();
      if (!current) {
        const record: LeaseRecord = {
          holderIdentity: identity,
          leaseDurationSeconds: durationSeconds,
          acquireTime: nowText,
          renewTime: nowText,
          leaseTransitions: 0,
        };
        const version = await this.options.store.create(record);
        this.observe(record, version, now);
        return true;
      }
      if (!this.observed || this.observed.version !== current.version) this.observe(current.record, current.version, now);
      const holder = current.record.holderIdentity;
      const validForMs = (current.record.leaseDurationSeconds || durationSeconds) * 1000;
      if (holder !== '' && holder !== identity && this.observed!.at + validForMs > now) return false;
      const record: LeaseRecord =
        holder === identity
          ? { ...current.record, leaseDurationSeconds: durationSeconds, renewTime: nowText }
          : {
              holderIdentity: identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: nowText,
              renewTime: nowText,
              leaseTransitions: (current.record.leaseTransitions ?? 0) + 1,
            };
      const version = await this.options.store.update(record, current.version);
      this.observe(record, version, now);
      return true;
    } catch (error) {
      // Conflicts (another replica won the race) and API errors alike: try again next period.
      this.logger.debug('lease acquire/renew failed', { error: describeError(error) });
      return false;
    }
  }

  /** Gives the lease up if this replica holds it, so a follower can take over at once. */
  async release(): Promise<boolean> {
    try {
      const current = await this.options.store.get();
      if (!current || current.record.holderIdentity !== this.options.identity) return false;
      const now = formatMicroTime(new Date(this.now()));
      const record: LeaseRecord = { ...current.record, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now };
      const version = await this.options.store.update(record, current.version);
      this.observe(record, version, this.now());
      return true;
    } catch (error) {
      this.logger.warn('could not release the lease; followers take over once it expires', { error: describeError(error) });
      return false;
    }
  }

  private async lead(signal: AbortSignal): Promise<void> {
    this.leading = true;
    const leadership = new AbortController();
    const onOuterAbort = () => leadership.abort();
    signal.addEventListener('abort', onOuterAbort, { once: true });
    this.logger.info('became leader');
    try {
      await this.options.onStartedLeading(leadership.signal);
    } catch (error) {
      this.logger.error('onStartedLeading threw', { error: describeError(error) });
    }
    let lastRenewal = this.now();
    while (!leadership.signal.aborted) {
      await sleep(this.retryPeriodMs, leadership.signal);
      if (leadership.signal.aborted) break;
      if (await this.tryAcquireOrRenew()) {
        lastRenewal = this.now();
      } else if (this.now() - lastRenewal >= this.renewDeadlineMs || this.lastLeader !== this.options.identity) {
        this.logger.warn('lost the lease');
        break;
      }
    }
    signal.removeEventListener('abort', onOuterAbort);
    leadership.abort();
    this.leading = false;
    try {
      await this.options.onStoppedLeading?.();
    } catch (error) {
      this.logger.error('onStoppedLeading threw', { error: describeError(error) });
    }
    if (signal.aborted && (this.options.releaseOnCancel ?? true)) await this.release();
  }

  private observe(record: LeaseRecord, version: string, at: number): void {
    this.observed = { record, version, at };
    if (record.holderIdentity !== this.lastLeader) {
      this.lastLeader = record.holderIdentity;
      if (record.holderIdentity !== '') this.options.onNewLeader?.(record.holderIdentity);
    }
  }
}

/** A lease store in memory, for tests and single-process setups. */
export class MemoryLeaseStore implements LeaseStore {
  readonly description = 'memory';
  private current: { record: LeaseRecord; version: string } | undefined;
  private counter = 0;

  async get(): Promise<{ record: LeaseRecord; version: string } | undefined> {
    return this.current;
  }

  async create(record: LeaseRecord): Promise<string> {
    if (this.current) throw Object.assign(new Error('lease already exists'), { statusCode: 409 });
    this.current = { record, version: String(++this.counter) };
    return this.current.version;
  }

  async update(record: LeaseRecord, version: string): Promise<string> {
    if (!this.current || this.current.version !== version) throw Object.assign(new Error('conflict'), { statusCode: 409 });
    this.current = { record, version: String(++this.counter) };
    return this.current.version;
  }
}
