import { createKeyedExtensionPoint } from '../kernel/extension-point.js';
import type { Logger } from './runtime.js';

/** Which object to converge: a namespaced object has a namespace, a cluster-scoped one does not. */
export interface ReconcileRequest {
  readonly namespace?: string;
  readonly name: string;
}

export interface ReconcileResult {
  /** Reconcile again after this many milliseconds, even if nothing changes. */
  readonly requeueAfter?: number;
}

/**
 * A kind of object, e.g. `{ apiVersion: 'apps/v1', kind: 'Deployment' }`. `T` is the type of its objects
 * (`@olm/api`'s `Kinds` table sets it), so that `cache.get(Kinds.subscription, …)` needs no cast.
 */
export interface ObjectKind<T = unknown> {
  readonly apiVersion: string;
  readonly kind: string;
  /**
   * Watch and cache only the objects' `metadata` (a metadata-only informer, PartialObjectMetadata
   * on the wire): for kinds with many or large objects of which a controller needs names, labels and
   * owners. The cache of a kind with it is another cache than the full one.
   */
  readonly metadataOnly?: boolean;
  /** Type only, never set: what the cache and the client hold of this kind. */
  readonly objectType?: T;
}

/** The type of the objects of `kind`: its `objectType`, or a plain `CachedObject` for a kind without one. */
export type ObjectOf<T> = unknown extends T ? CachedObject : T;

/** The type of the objects of a kind (or of a reference spread from one, `{ ...kind, name }`). */
export type ObjectOfKind<K> = K extends { readonly objectType?: infer T } ? ObjectOf<T> : CachedObject;

/** A Kubernetes object from the informer cache, as plain JSON; typed only in the fields the runtime reads. */
export interface CachedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }>;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/**
 * Another kind whose changes should reconcile this reconciler's objects. Without `map`, an object
 * maps to its owner: through `ownerReferences` of the reconciled kind, or OLM's owner labels
 * (`olm.owner`, `olm.owner.namespace`, `olm.owner.kind`). `map` reads related objects from `cache`,
 * the runtime's informer cache (the reconciled kind and every watched kind are in it).
 */
export interface ReconcilerWatch extends ObjectKind {
  map?(object: CachedObject, cache: ObjectReader): readonly ReconcileRequest[];
}

/** A watch of `kind` whose mapper receives the kind's objects as their type (`watchOf(Kinds.subscription, (subscription) => …)`). */
export function watchOf<T>(kind: ObjectKind<T>, map: (object: ObjectOf<T>, cache: ObjectReader) => readonly ReconcileRequest[]): ReconcilerWatch {
  // The runtime hands a watch's mapper only objects of the watched kind, which the kind's type describes.
  return { ...kind, map: (object, cache) => map(object as ObjectOf<T>, cache) };
}

/**
 * Events from outside the API server that should reconcile objects (a registry's connection
 * changing state, content found changed). The runtime subscribes once, when the reconciler is
 * added, and calls the returned function when it is removed. Requests arriving while the
 * reconciler is stopped are dropped: its start reconciles every object anyway.
 */
export interface ReconcilerEventSource {
  subscribe(enqueue: (request: ReconcileRequest) => void): () => void;
}

/** Read access to the shared informer cache, for kinds some reconciler watches. Never mutate what it returns. */
export interface ObjectReader {
  get<T>(kind: ObjectKind<T>, name: string, namespace?: string): ObjectOf<T> | undefined;
  list<T>(kind: ObjectKind<T>, options?: { readonly namespace?: string; readonly labelSelector?: string }): readonly ObjectOf<T>[];
}

/** What the runtime hands to each reconcile call. */
export interface ReconcileContext {
  /** Aborted when the manager shuts down or loses leadership: stop early, the key is retried later. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** How many times in a row this key failed before this attempt (0 on a first try). */
  readonly retries: number;
  readonly cache: ObjectReader;
}

/**
 * A level-based reconciler, run by the controller runtime for the kind it watches: read the current
 * state, converge, then return `{ requeueAfter }` or throw. A thrown error is retried with per-key
 * exponential backoff, except an error with code `OLM_RUNTIME_TERMINAL` (a `TerminalError`), which is not.
 */
export interface Reconciler {
  /** Unique name, used in metrics and logs (`csv`, `subscription`). */
  readonly name: string;
  /** The watched kind, e.g. `{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' }`. */
  readonly for: ObjectKind;
  /**
   * Which objects of the `for` kind it reconciles (default all): an event for an object this rejects,
   * judged by the object after the change, queues nothing, nor does the start-up sweep. A cheap test of
   * the object alone, e.g. leaving out tens of thousands of copied CSVs that need no reconcile.
   */
  readonly accepts?: (object: CachedObject) => boolean;
  /** Kinds this reconciler creates; a change to one reconciles its owner. */
  readonly owns?: readonly ObjectKind[];
  /** Further kinds to watch, each with a mapper from a changed object to the requests to reconcile. */
  readonly watches?: readonly ReconcilerWatch[];
  /** Requests queued each time the reconciler starts, besides every cached object of its kind: e.g. a singleton that may not exist yet. */
  readonly startRequests?: readonly ReconcileRequest[];
  /** Further triggers from outside the cluster. */
  readonly eventSources?: readonly ReconcilerEventSource[];
  /** How many keys may be reconciled at once (never one key twice at once). Default 1. */
  readonly maxConcurrentReconciles?: number;
  reconcile(request: ReconcileRequest, context: ReconcileContext): Promise<ReconcileResult | void>;
}

export const reconcilers = createKeyedExtensionPoint<Reconciler>({
  id: 'olm.reconcilers',
  description: 'reconcilers by name',
  keyOf: (reconciler) => reconciler.name,
});
