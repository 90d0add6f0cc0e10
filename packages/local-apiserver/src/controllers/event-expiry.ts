import type { Cluster } from '../cluster.js';
import { StatusError } from '../errors.js';

/**
 * Events expire as in kube-apiserver (`--event-ttl`, one hour by default): an Event last recorded
 * longer ago than the TTL is deleted, so event recorders see them go and create new ones.
 */
export class EventExpiry {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly ttlMs: number,
  ) {}

  start(): void {
    const interval = Math.max(10, Math.min(60_000, Math.floor(this.ttlMs / 4)));
    this.timer = setInterval(() => this.sweep(), interval);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  sweep(now = Date.now()): void {
    const type = this.cluster.registry.get('', 'events');
    if (!type) return;
    for (const event of this.cluster.store.list('/events')) {
      const last = [event['lastTimestamp'], event['eventTime'], event.metadata.creationTimestamp].find((value) => typeof value === 'string' && value !== '') as string | undefined;
      const time = last !== undefined ? Date.parse(last) : Number.NaN;
      if (Number.isNaN(time) || now - time <= this.ttlMs) continue;
      try {
        this.cluster.delete(type, event.metadata.namespace, event.metadata.name ?? '');
      } catch (error) {
        if (!(error instanceof StatusError && error.code === 404)) throw error;
      }
    }
  }
}
