import type { CachedObject, Logger, ObjectKind, ObjectOf, ObjectReader } from '@olm/core';
import { OlmError } from '@olm/core';
import type { BackoffOptions } from './backoff.js';
import { RuntimeErrorCodes } from './errors.js';
import type { IndexFunction } from './indexer.js';
import { Informer, namespacesToWatch } from './informer.js';
import type { KubeClient } from '@olm/core';
import { silentLogger } from './logger.js';
import { kindId, requestKey } from './object-key.js';

/** Objects of a kind that are cached as metadata only when they carry a label (see `metadataOnlyLabelled`). */
export interface MetadataOnlyLabelled extends ObjectKind {
  readonly label: string;
}

/**
 * OLM's copied CSVs (label `olm.copiedFrom`): one per namespace and AllNamespaces operator, 50,000 at
 * 10,000 namespaces x 5 operators. Whether a copy exists and is current is read from its name, labels
 * and hash annotations, so the cache keeps no spec or status of them.
 */
export const copiedCsvsMetadataOnly: MetadataOnlyLabelled = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', label: 'olm.copiedFrom' };

/** A kind to cache in more namespaces than the cache's own, e.g. the CatalogSources of a global catalog namespace. */
export interface KindNamespaces extends ObjectKind {
  readonly namespaces: readonly string[];
}

export interface InformerCacheOptions {
  readonly client: KubeClient;
  /** Replays cached objects to handlers this often (level-based safety net). Default 10 min; 0 turns it off. */
  readonly resyncPeriodMs?: number;
  /** Cache one namespace only; default all. Shorthand for `namespaces: [namespace]`. */
  readonly namespace?: string;
  /**
   * Cache these namespaces only (default, or empty: all): namespaced kinds get a list/watch per
   * namespace, seen as one cache; cluster-scoped kinds are cached whole.
   */
  readonly namespaces?: readonly string[];
  /** Kinds also cached in further namespaces when the cache is limited to some (ignored when it caches all). */
  readonly additionalNamespaces?: readonly KindNamespaces[];
  /** Objects of these kinds carrying the label are kept as metadata only (full caches only). Default: OLM's copied CSVs; empty: none. */
  readonly metadataOnlyLabelled?: readonly MetadataOnlyLabelled[];
  readonly backoff?: BackoffOptions;
  readonly pageSize?: number;
  readonly watchTimeoutSeconds?: number;
  readonly logger?: Logger;
}

/**
 * One shared informer per kind, created on first use: every controller that watches ConfigMaps
 * shares one list/watch and one cache. Reads never go to the API server.
 */
export class InformerCache implements ObjectReader {
  private readonly informers = new Map<string, Informer>();
  private readonly options: InformerCacheOptions;
  /** The namespaces cached; empty for all. */
  readonly namespaces: readonly string[];
  private started = false;

  constructor(options: InformerCacheOptions) {
    this.options = options;
    this.namespaces = namespacesToWatch(options);
    for (const extra of options.additionalNamespaces ?? []) namespacesToWatch({ namespaces: extra.namespaces });
  }

  /** The namespaces a kind is cached in (empty: all): the cache's own plus any additional ones for the kind. */
  namespacesFor(kind: ObjectKind): readonly string[] {
    if (this.namespaces.length === 0) return [];
    // Whether full or metadata-only, a kind is cached in the same namespaces.
    const id = kindId({ apiVersion: kind.apiVersion, kind: kind.kind });
    const additional = (this.options.additionalNamespaces ?? []).filter((entry) => kindId({ apiVersion: entry.apiVersion, kind: entry.kind }) === id).flatMap((entry) => entry.namespaces);
    return [...new Set([...this.namespaces, ...additional])];
  }

  /** The informer for a kind, created (and started, if the cache runs) on first call. */
  informerFor(kind: ObjectKind, indexes?: Readonly<Record<string, IndexFunction>>): Informer {
    const id = kindId(kind);
    let informer = this.informers.get(id);
    if (!informer) {
      informer = new Informer({
        client: this.options.client,
        kind: { apiVersion: kind.apiVersion, kind: kind.kind, ...(kind.metadataOnly ? { metadataOnly: true } : {}) },
        namespaces: this.namespacesFor(kind),
        resyncPeriodMs: this.options.resyncPeriodMs ?? 600_000,
        backoff: this.options.backoff,
        pageSize: this.options.pageSize,
        watchTimeoutSeconds: this.options.watchTimeoutSeconds,
        indexes,
        ...this.metadataOnlyLabelOf(kind),
        logger: this.options.logger ?? silentLogger,
      });
      this.informers.set(id, informer);
      if (this.started) informer.start();
    } else if (indexes) {
      for (const [name, indexFunction] of Object.entries(indexes)) {
        if (!informer.indexer.hasIndex(name)) informer.indexer.addIndex(name, indexFunction);
      }
    }
    return informer;
  }

  private metadataOnlyLabelOf(kind: ObjectKind): { metadataOnlyLabel?: string } {
    if (kind.metadataOnly) return {};
    const entry = (this.options.metadataOnlyLabelled ?? [copiedCsvsMetadataOnly]).find((candidate) => candidate.apiVersion === kind.apiVersion && candidate.kind === kind.kind);
    return entry ? { metadataOnlyLabel: entry.label } : {};
  }

  /** Every informer created so far. */
  get all(): readonly Informer[] {
    return [...this.informers.values()];
  }

  // The casts below are the typed reads' one door: an informer of a kind holds only objects of that kind
  // as the API server served them, which is what the kind's `objectType` describes.
  get<T>(kind: ObjectKind<T>, name: string, namespace?: string): ObjectOf<T> | undefined {
    return this.cachedInformer(kind).indexer.get(requestKey(namespace ? { namespace, name } : { name })) as ObjectOf<T> | undefined;
  }

  list<T>(kind: ObjectKind<T>, options: { readonly namespace?: string; readonly labelSelector?: string } = {}): ObjectOf<T>[] {
    return this.cachedInformer(kind).indexer.list(options) as ObjectOf<T>[];
  }

  /** Objects of a kind whose index `name` has `value` (built-ins: namespace, owner, label). */
  byIndex<T extends CachedObject = CachedObject>(kind: ObjectKind, name: string, value: string): T[] {
    return this.cachedInformer(kind).indexer.byIndex(name, value) as T[];
  }

  start(): void {
    this.started = true;
    for (const informer of this.informers.values()) informer.start();
  }

  /** Waits until every informer has listed once. */
  async waitForSync(timeoutMs = 60_000): Promise<void> {
    await Promise.all([...this.informers.values()].map((informer) => informer.waitForSync(timeoutMs)));
  }

  get hasSynced(): boolean {
    return [...this.informers.values()].every((informer) => informer.hasSynced);
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
    this.informers.clear();
  }

  private cachedInformer(kind: ObjectKind): Informer {
    const informer = this.informers.get(kindId(kind));
    if (!informer) {
      throw new OlmError(
        RuntimeErrorCodes.kindNotCached,
        `no informer caches ${kind.kind} (${kind.apiVersion}); add it to a reconciler's for, owns or watches, or call informerFor() first`,
        { details: { ...kind } },
      );
    }
    return informer;
  }
}
