import type { KubeObject } from './kube-object.js';
import { defaultObjectSizeLimits, storedObjectTooLarge } from './object-size-limits.js';

/**
 * The MVCC store: one revision counter for every write (as etcd's), the current object per key,
 * and a bounded ring of recent events so that watches can resume from an older revision.
 */
export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  readonly revision: number;
  readonly type: EventType;
  /** `<group>/<plural>` of the resource type. */
  readonly resource: string;
  readonly object: KubeObject;
  /** The object before this event (absent for ADDED). */
  readonly previous?: KubeObject | undefined;
}

export type LogRecord =
  | { readonly t: 'put'; readonly event: StoreEvent }
  | { readonly t: 'del'; readonly event: StoreEvent };

export interface StorePersistence {
  append(record: LogRecord): void;
  /** Resolves when every appended record is on disk. */
  flush(): Promise<void>;
}

export interface StoreSnapshot {
  readonly revision: number;
  readonly compactedRevision: number;
  readonly objects: Iterable<{ resource: string; object: KubeObject }>;
  readonly history: Iterable<StoreEvent>;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

type Listener = (event: StoreEvent) => void;

const alreadyDurable = Promise.resolve();
const defaultWindowBytes = 256 * 1024 * 1024;

class ResourceBucket {
  readonly objects = new Map<string, KubeObject>();
  private sortedKeys: string[] | undefined;

  set(key: string, object: KubeObject): void {
    if (!this.objects.has(key)) this.sortedKeys = undefined;
    this.objects.set(key, object);
  }

  delete(key: string): void {
    if (this.objects.delete(key)) this.sortedKeys = undefined;
  }

  keys(): string[] {
    this.sortedKeys ??= [...this.objects.keys()].sort();
    return this.sortedKeys;
  }
}

export class Store {
  private currentRevision = 0;
  private compacted = 0;
  private readonly buckets = new Map<string, ResourceBucket>();
  private readonly ring: (StoreEvent | undefined)[];
  /** Bytes of each retained event (its object and previous state), and their total. */
  private readonly ringBytes: number[];
  private retainedBytes = 0;
  private ringStart = 0;
  private ringLength = 0;
  /** Serialized size of stored objects, measured once (objects are not changed once stored). */
  private readonly sizes = new WeakMap<KubeObject, number>();
  private readonly listeners = new Set<Listener>();
  private persistence: StorePersistence | undefined;
  private pendingDispatch: StoreEvent[] = [];
  private dispatchScheduled = false;
  private dispatchChain: Promise<void> = Promise.resolve();

  /**
   * `windowSize` events are kept for watch resumption, fewer when they hold more than `windowBytes`:
   * 10,000 events of near-limit objects would otherwise hold tens of GiB.
   */
  constructor(
    readonly windowSize = 10_000,
    readonly maxStoredObjectBytes = defaultObjectSizeLimits.maxStoredObjectBytes,
    readonly windowBytes = defaultWindowBytes,
  ) {
    this.ring = new Array<StoreEvent | undefined>(Math.max(1, windowSize));
    this.ringBytes = new Array<number>(this.ring.length).fill(0);
  }

  get revision(): number {
    return this.currentRevision;
  }

  /** Watching from a revision below this one gets 410 Expired. */
  get compactedRevision(): number {
    return this.compacted;
  }

  setPersistence(persistence: StorePersistence | undefined): void {
    this.persistence = persistence;
  }

  /** Loads a replayed durable log (before serving). */
  restore(snapshot: StoreSnapshot): void {
    for (const { resource, object } of snapshot.objects) this.bucket(resource).set(objectKey(object.metadata.namespace, object.metadata.name ?? ''), object);
    for (const event of snapshot.history) this.remember(event);
    this.currentRevision = Math.max(this.currentRevision, snapshot.revision);
    this.compacted = Math.max(this.compacted, snapshot.compactedRevision);
  }

  /** Applies a replayed log record. */
  replay(record: LogRecord): void {
    const { event } = record;
    const key = objectKey(event.object.metadata.namespace, event.object.metadata.name ?? '');
    if (record.t === 'put') this.bucket(event.resource).set(key, event.object);
    else this.bucket(event.resource).delete(key);
    this.currentRevision = Math.max(this.currentRevision, event.revision);
    this.remember(event);
  }

  private bucket(resource: string): ResourceBucket {
    let bucket = this.buckets.get(resource);
    if (!bucket) {
      bucket = new ResourceBucket();
      this.buckets.set(resource, bucket);
    }
    return bucket;
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.buckets.get(resource)?.objects.get(objectKey(namespace, name));
  }

  /** Objects of a resource in key order (`<namespace>/<name>`), optionally in one namespace. */
  list(resource: string, namespace?: string): KubeObject[] {
    return [...this.iterate(resource, namespace)];
  }

  /** Like `list`, lazily, starting after the key `after` (for paging). */
  *iterate(resource: string, namespace?: string, after?: string): Generator<KubeObject> {
    const bucket = this.buckets.get(resource);
    if (!bucket) return;
    const keys = bucket.keys();
    const prefix = namespace === undefined ? '' : `${namespace}/`;
    // Binary search for the first key past both the namespace prefix and `after`.
    const floor = after !== undefined && after >= prefix ? after : undefined;
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const key = keys[middle] ?? '';
      if (floor !== undefined ? key <= floor : key < prefix) low = middle + 1;
      else high = middle;
    }
    for (let index = low; index < keys.length; index++) {
      const key = keys[index] ?? '';
      if (!key.startsWith(prefix)) break;
      const object = bucket.objects.get(key);
      if (object) yield object;
    }
  }

  count(resource?: string): number {
    if (resource !== undefined) return this.buckets.get(resource)?.objects.size ?? 0;
    let total = 0;
    for (const bucket of this.buckets.values()) total += bucket.objects.size;
    return total;
  }

  *allObjects(): Iterable<{ resource: string; object: KubeObject }> {
    for (const [resource, bucket] of this.buckets) for (const object of bucket.objects.values()) yield { resource, object };
  }

  /** Stores `object` (its resourceVersion is set to the new revision) and returns the revision. */
  put(resource: string, object: KubeObject): StoreEvent {
    // etcd refuses a value over its request limit; so does this store, before anything changes.
    const bytes = Buffer.byteLength(JSON.stringify(object));
    if (bytes > this.maxStoredObjectBytes) throw storedObjectTooLarge(bytes, this.maxStoredObjectBytes);
    this.sizes.set(object, bytes);
    const key = objectKey(object.metadata.namespace, object.metadata.name ?? '');
    const bucket = this.bucket(resource);
    const previous = bucket.objects.get(key);
    const revision = ++this.currentRevision;
    object.metadata.resourceVersion = String(revision);
    bucket.set(key, object);
    const event: StoreEvent = { revision, type: previous ? 'MODIFIED' : 'ADDED', resource, object, previous };
    this.commit({ t: 'put', event });
    return event;
  }

  /** Removes an object; the DELETED event carries its last state at the new revision. */
  remove(resource: string, object: KubeObject): StoreEvent {
    const key = objectKey(object.metadata.namespace, object.metadata.name ?? '');
    const bucket = this.bucket(resource);
    const previous = bucket.objects.get(key);
    const revision = ++this.currentRevision;
    const last: KubeObject = { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } };
    this.sizes.set(last, this.sizeOf(object));
    bucket.delete(key);
    const event: StoreEvent = { revision, type: 'DELETED', resource, object: last, previous };
    this.commit({ t: 'del', event });
    return event;
  }

  private commit(record: LogRecord): void {
    this.remember(record.event);
    this.persistence?.append(record);
    this.pendingDispatch.push(record.event);
    this.scheduleDispatch();
  }

  /** Resolves once everything written so far is durable (immediately without a data directory). */
  durable(): Promise<void> {
    return this.persistence ? this.persistence.flush() : alreadyDurable;
  }

  private scheduleDispatch(): void {
    if (this.dispatchScheduled) return;
    this.dispatchScheduled = true;
    // Batches writes of one tick; with a data directory a batch is dispatched only once it is durable,
    // so no watcher observes a write that a crash could lose. Batches stay in revision order.
    queueMicrotask(() => {
      this.dispatchScheduled = false;
      const batch = this.pendingDispatch;
      this.pendingDispatch = [];
      if (!this.persistence) {
        this.dispatch(batch);
        return;
      }
      const durable = this.persistence.flush();
      this.dispatchChain = this.dispatchChain.then(
        () => durable,
        () => durable,
      ).then(
        () => this.dispatch(batch),
        () => this.dispatch(batch),
      );
    });
  }

  private dispatch(events: readonly StoreEvent[]): void {
    for (const event of events) {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch {
          // A failing listener (a controller, a watch) must not take the others or the server down.
        }
      }
    }
  }

  private remember(event: StoreEvent): void {
    const capacity = this.ring.length;
    if (this.ringLength === capacity) this.dropOldest();
    const slot = (this.ringStart + this.ringLength) % capacity;
    const bytes = this.sizeOf(event.object) + (event.previous ? this.sizeOf(event.previous) : 0);
    this.ring[slot] = event;
    this.ringBytes[slot] = bytes;
    this.ringLength++;
    this.retainedBytes += bytes;
    while (this.ringLength > 1 && this.retainedBytes > this.windowBytes) this.dropOldest();
  }

  private dropOldest(): void {
    const dropped = this.ring[this.ringStart];
    if (dropped) this.compacted = Math.max(this.compacted, dropped.revision);
    this.retainedBytes -= this.ringBytes[this.ringStart] ?? 0;
    this.ring[this.ringStart] = undefined;
    this.ringStart = (this.ringStart + 1) % this.ring.length;
    this.ringLength--;
  }

  private sizeOf(object: KubeObject): number {
    let bytes = this.sizes.get(object);
    if (bytes === undefined) {
      bytes = Buffer.byteLength(JSON.stringify(object));
      this.sizes.set(object, bytes);
    }
    return bytes;
  }

  /** Retained events newer than `revision`, or `undefined` when some of them were compacted away. */
  eventsSince(revision: number): StoreEvent[] | undefined {
    if (revision < this.compacted) return undefined;
    const out: StoreEvent[] = [];
    for (let index = 0; index < this.ringLength; index++) {
      const event = this.ring[(this.ringStart + index) % this.ring.length];
      if (event && event.revision > revision) out.push(event);
    }
    return out;
  }

  /** Retained events, oldest first (for compaction of the durable log). */
  history(): StoreEvent[] {
    return this.eventsSince(this.compacted) ?? [];
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drops history so that revisions up to `revision` are expired (a test hook for 410 handling). */
  compact(revision: number): void {
    this.compacted = Math.max(this.compacted, Math.min(revision, this.currentRevision));
  }
}
