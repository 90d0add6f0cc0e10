import {
  describeError,
  type CatalogBundle,
  type CatalogConnection,
  type CatalogContent,
  type CatalogPackage,
  type CatalogSourceType,
  type ConnectionState,
  type KubeClient,
  type Logger,
} from '@olm/core';
import { Backoff, canonicalJson, type BackoffOptions } from '@olm/controller-runtime';
import { forResolution, slimBundle } from './catalog-content.js';

export interface CatalogSourceKey {
  readonly namespace: string;
  readonly name: string;
}

interface SourceEntry {
  connection?: CatalogConnection;
  /** What the connection was opened with; a change reopens it and drops the cached content. */
  fingerprint?: string;
  content?: CatalogContent;
  /** When `content` was loaded; unset once it is stale (it is then only a fallback). */
  loadedAt?: number;
  /** Bumped each time the content goes stale, so a load that started before cannot pass for fresh. */
  epoch: number;
  loading?: { readonly epoch: number; readonly promise: Promise<CatalogContent> };
  /** The state the last probe found. */
  lastState?: ConnectionState;
  /** The CatalogSource's metadata revision the cached content belongs to. */
  revision?: string;
  /** From the connection's `watchState`: the state now, whether it was ever READY, and when it last became READY. */
  watched?: ConnectionState;
  everReady?: boolean;
  connectedAt?: number;
  unwatch?: () => void;
  /** The source's `contentDigest` when last asked (unset after the content went stale for another reason). */
  digest?: string;
  /** Delays between failed loads; reset by a load that works or a new connection. */
  readonly loadBackoff: Backoff;
  /** The last load failed: why, and when the next may start (loads before then fail with this error at once). */
  loadFailure?: CatalogLoadFailure;
}

/** Why a source's content cannot be read, and when it is read again (milliseconds, the options' clock). */
export interface CatalogLoadFailure {
  readonly error: unknown;
  readonly retryAt: number;
  /** Failed loads in a row. */
  readonly attempts: number;
}

/**
 * Between failed loads: 1 s doubling to 2 minutes, plus up to 20% at random so many catalogs failing
 * together spread out. A registry that streams forever costs a bounded read per attempt (the client's
 * stream limits); without the backoff each reader (probe, resolution, subscription refresh) started the
 * next read at once and kept a core busy.
 */
export const defaultCatalogLoadBackoff: BackoffOptions = Object.freeze({ initialMs: 1_000, maxMs: 120_000, jitter: 0.2 });

/**
 * What, besides the spec, marks a CatalogSource as changed: generation, labels and annotations.
 * A change may mean new content at the same address (a republished catalog), so cached content is dropped.
 */
export function catalogSourceRevision(source: { metadata?: { generation?: number; labels?: unknown; annotations?: unknown } }): string {
  return canonicalJson([source.metadata?.generation, source.metadata?.labels, source.metadata?.annotations]);
}

export interface CatalogSourceConnectionsOptions {
  /** The source types by `spec.sourceType` (the kernel's `catalogSourceTypes` point). */
  readonly sourceTypes: () => ReadonlyMap<string, CatalogSourceType>;
  /** The client connections are opened with, for source types that read the cluster (a ConfigMap catalog). */
  readonly client?: () => KubeClient;
  /** How long loaded content is used before it is fetched again. */
  readonly ttlMs: number;
  /** Deadline of a health probe of a gRPC registry. */
  readonly probeTimeoutMs?: number;
  /** Delays between failed content loads of one source; default `defaultCatalogLoadBackoff`. */
  readonly loadBackoff?: BackoffOptions;
  readonly now: () => number;
  readonly logger: Logger;
  /** Called after each successful content load (the `catalog_source_snapshots_total` counter). */
  readonly onSnapshot?: (key: CatalogSourceKey) => void;
  /** A watched connection changed state (its CatalogSource should be probed and its status written). */
  readonly onStateChange?: (key: CatalogSourceKey, state: ConnectionState) => void;
  /**
   * The cached content went stale because the source may serve other content now: its connection
   * became READY again (upstream invalidates its snapshot then) or its content digest changed.
   */
  readonly onContentChanged?: (key: CatalogSourceKey) => void;
}

const keyOf = (key: CatalogSourceKey) => `${key.namespace}/${key.name}`;

/** A connection offering the contract's optional manifests on demand: both members, or it is read with `load()`. */
type ManifestsOnDemand = CatalogConnection & Required<Pick<CatalogConnection, 'loadWithoutManifests' | 'loadBundle'>>;

function offersManifestsOnDemand(connection: CatalogConnection): connection is ManifestsOnDemand {
  return typeof connection.loadWithoutManifests === 'function' && typeof connection.loadBundle === 'function';
}

/** Content loaded without the manifests of bundles with an image: where to fetch them, and those fetched so far. */
interface ManifestsToFetch {
  readonly connection: ManifestsOnDemand;
  readonly bundles: Map<string, Promise<CatalogBundle>>;
}

/**
 * Open catalogs by CatalogSource: one connection each, reopened when the spec changes; content
 * cached for a TTL (concurrent loads shared); health probed through the registry's health service
 * for gRPC sources, or by the connection's own state otherwise.
 *
 * A registry can restart behind the same address with other content, which no CatalogSource change
 * announces. So the content also goes stale when a watched connection becomes READY again after
 * having been READY (a new server process, as upstream's `syncSourceState` invalidates on READY),
 * when a probe finds the source healthy again, and when the source's content digest (asked at each
 * healthy probe) differs from the last one: a server whose content changed while the connection
 * never dropped. Each is told through `onContentChanged`.
 */
export class CatalogSourceConnections {
  private readonly entries = new Map<string, SourceEntry>();
  /** By content snapshot, so fetched manifests go with the snapshot they complete (and are dropped with it). */
  private readonly manifestsToFetch = new WeakMap<CatalogContent, ManifestsToFetch>();

  constructor(private readonly options: CatalogSourceConnectionsOptions) {}

  /** Opens (or reuses) the connection for a source. Throws what the source type throws. */
  async connect(key: CatalogSourceKey, sourceType: string, spec: Readonly<Record<string, unknown>>): Promise<CatalogConnection> {
    const entry = this.entry(key);
    const fingerprint = canonicalJson([sourceType, spec]);
    if (entry.connection && entry.fingerprint === fingerprint) return entry.connection;
    await this.drop(entry);
    entry.fingerprint = fingerprint;
    const client = this.options.client?.();
    const request = { namespace: key.namespace, name: key.name, spec, ...(client ? { client } : {}) };
    const type = this.options.sourceTypes().get(sourceType);
    let connection: CatalogConnection;
    try {
      if (!type) throw new Error(`unknown sourcetype: ${sourceType}`);
      connection = await type.open(request);
    } catch (error) {
      entry.fingerprint = undefined;
      throw error;
    }
    entry.connection = connection;
    if (connection.watchState) {
      try {
        entry.unwatch = connection.watchState((state) => this.observe(key, entry, connection, state));
      } catch (error) {
        this.options.logger.warn('cannot watch the catalog connection; its state is probed only', { catalogSource: keyOf(key), error: describeError(error) });
      }
    }
    return connection;
  }

  /** Why the last content load failed and when the next one may start; undefined after one that worked. */
  loadFailure(key: CatalogSourceKey): CatalogLoadFailure | undefined {
    return this.entries.get(keyOf(key))?.loadFailure;
  }

  /** When the current connection last became READY, when its state is watched (undefined otherwise). */
  connectedAt(key: CatalogSourceKey): number | undefined {
    return this.entries.get(keyOf(key))?.connectedAt;
  }

  private observe(key: CatalogSourceKey, entry: SourceEntry, connection: CatalogConnection, state: ConnectionState): void {
    if (entry.connection !== connection || this.entries.get(keyOf(key)) !== entry) return;
    const previous = entry.watched;
    entry.watched = state;
    if (state === 'READY' && previous !== 'READY') {
      entry.connectedAt = this.options.now();
      if (entry.everReady) this.markStale(key, entry, 'the registry connection is READY again');
      entry.everReady = true;
    }
    this.options.onStateChange?.(key, state);
  }

  /** Drops the content's freshness (it stays as a fallback), allows a read at once, and tells `onContentChanged`. */
  private markStale(key: CatalogSourceKey, entry: SourceEntry, why: string): void {
    entry.epoch += 1;
    entry.loadedAt = undefined;
    entry.digest = undefined;
    // New content may read fine: one read now, but the delays keep growing if it fails again.
    if (entry.loadFailure) entry.loadFailure = { ...entry.loadFailure, retryAt: this.options.now() };
    this.options.logger.info('catalog content may have changed; loading it again', { catalogSource: keyOf(key), why });
    this.options.onContentChanged?.(key);
  }

  isConnected(key: CatalogSourceKey): boolean {
    return this.entries.get(keyOf(key))?.connection !== undefined;
  }

  hasContent(key: CatalogSourceKey): boolean {
    return this.entries.get(keyOf(key))?.content !== undefined;
  }

  /** The content loaded last, without loading (undefined before the first load). */
  cachedContent(key: CatalogSourceKey): CatalogContent | undefined {
    return this.entries.get(keyOf(key))?.content;
  }

  /** Forgets the cached content, so the next read loads it again. */
  invalidate(key: CatalogSourceKey): void {
    const entry = this.entries.get(keyOf(key));
    if (!entry) return;
    entry.epoch += 1;
    entry.loadedAt = undefined;
  }

  /**
   * The catalog content: cached within the TTL and while the source's `revision` (when given) is
   * unchanged, else loaded again. When a reload fails and older
   * content exists, the older content is used (a registry restarting does not stop resolution).
   */
  async content(key: CatalogSourceKey, revision?: string): Promise<CatalogContent> {
    const entry = this.entries.get(keyOf(key));
    const connection = entry?.connection;
    if (!entry || !connection) throw new Error(`no registry client established for catalogsource ${key.namespace}/${key.name}`);
    if (revision !== undefined && entry.revision !== revision) {
      if (entry.revision !== undefined) this.invalidate(key);
      entry.revision = revision;
    }
    if (entry.content && entry.loadedAt !== undefined && this.options.now() - entry.loadedAt < this.options.ttlMs) return entry.content;
    // Backing off after a failed load: the older content if any, else the failure, without reading again.
    const failure = entry.loadFailure;
    if (failure && !entry.loading && this.options.now() < failure.retryAt) {
      if (entry.content) return entry.content;
      throw failure.error;
    }
    // A load that started before the content went stale may carry the old content: start another.
    if (entry.loading?.epoch !== entry.epoch) entry.loading = { epoch: entry.epoch, promise: this.load(key, entry, connection) };
    try {
      return await entry.loading.promise;
    } catch (error) {
      if (entry.content) {
        this.options.logger.warn('catalog reload failed; using the content loaded before', { catalogSource: keyOf(key), error: describeError(error) });
        return entry.content;
      }
      throw error;
    }
  }

  private async load(key: CatalogSourceKey, entry: SourceEntry, connection: CatalogConnection): Promise<CatalogContent> {
    const epoch = entry.epoch;
    try {
      // Resolution reads no manifests: a connection that can leave them out (of any source type) does,
      // and installs fetch the few they need (`bundleWithManifests`).
      const lazy = offersManifestsOnDemand(connection);
      const content = forResolution(await (lazy ? connection.loadWithoutManifests() : connection.load()));
      if (lazy) this.manifestsToFetch.set(content, { connection, bundles: new Map() });
      if (entry.connection === connection) {
        entry.content = content;
        // Content that went stale while it loaded is kept as a fallback only.
        if (entry.epoch === epoch) entry.loadedAt = this.options.now();
      }
      this.options.onSnapshot?.(key);
      if (entry.connection === connection) {
        entry.loadBackoff.reset();
        entry.loadFailure = undefined;
      }
      return content;
    } catch (error) {
      if (entry.connection === connection) {
        const delayMs = entry.loadBackoff.next();
        entry.loadFailure = { error, retryAt: this.options.now() + delayMs, attempts: entry.loadBackoff.attemptCount };
        this.options.logger.warn('cannot load the catalog; backing off', { catalogSource: keyOf(key), error: describeError(error), retryInMs: Math.round(delayMs) });
      }
      throw error;
    } finally {
      if (entry.loading?.epoch === epoch) entry.loading = undefined;
    }
  }

  /**
   * A bundle of loaded `content` with its manifests, for an install. Content loaded without them
   * (see `content`) has bundles with an image that lack them: each is fetched once per snapshot from
   * the connection the snapshot came from, in `channelName` (or another channel of the bundle). Other
   * bundles are returned as they are.
   */
  async bundleWithManifests(content: CatalogContent, bundle: CatalogBundle, channelName: string): Promise<CatalogBundle> {
    const toFetch = this.manifestsToFetch.get(content);
    if (!toFetch || !bundle.image) return bundle;
    let fetched = toFetch.bundles.get(bundle.name);
    if (!fetched) {
      const channels = [...(content.packages.get(bundle.package)?.channels.values() ?? [])];
      const inChannel = (name: string) => channels.some((channel) => channel.name === name && channel.entries.some((entry) => entry.name === bundle.name));
      const channel = inChannel(channelName) ? channelName : (channels.find((candidate) => inChannel(candidate.name))?.name ?? channelName);
      fetched = toFetch.connection.loadBundle({ packageName: bundle.package, channelName: channel, name: bundle.name }).then(slimBundle);
      toFetch.bundles.set(bundle.name, fetched);
      // A failed fetch is tried again by the next install.
      fetched.catch(() => toFetch.bundles.delete(bundle.name));
    }
    return fetched;
  }

  /**
   * The connection's health: sources that can be asked (`probe`, a registry's gRPC health service)
   * are; other sources report the state of their last load (loading once if never). A healthy source
   * with a `contentDigest` is asked for it too. Recovering from an unhealthy state, or a new digest,
   * makes the cached content stale, since the registry may have changed.
   */
  async probe(key: CatalogSourceKey): Promise<ConnectionState> {
    const entry = this.entries.get(keyOf(key));
    const connection = entry?.connection;
    if (!entry || !connection) return 'SHUTDOWN';
    let state: ConnectionState;
    if (connection.probe) {
      state = await connection.probe({ timeoutMs: this.options.probeTimeoutMs ?? 5_000 });
      // The digest before the first load: content changing in between is then seen as a change, not missed.
      if (state === 'READY') await this.checkDigest(key, entry, connection);
      if (state === 'READY' && !entry.content) {
        // Load the first snapshot now, so a catalog that cannot be read shows up in its status.
        try {
          await this.content(key);
        } catch {
          state = 'TRANSIENT_FAILURE';
        }
      }
    } else {
      if (!entry.content) await this.content(key).catch(() => undefined);
      state = connection.state();
    }
    // Back from an unhealthy state; content that already went stale (the watch saw the reconnect) needs nothing more.
    if (state === 'READY' && entry.lastState !== undefined && entry.lastState !== 'READY' && entry.loadedAt !== undefined) {
      this.markStale(key, entry, `the catalog is healthy again after ${entry.lastState}`);
    }
    entry.lastState = state;
    return state;
  }

  private async checkDigest(key: CatalogSourceKey, entry: SourceEntry, connection: CatalogConnection): Promise<void> {
    if (!connection.contentDigest) return;
    let digest: string;
    try {
      digest = await connection.contentDigest({ timeoutMs: this.options.probeTimeoutMs ?? 5_000 });
    } catch (error) {
      // Health said READY: the next probe asks again; content and health stay as they are.
      this.options.logger.debug('cannot take the catalog content digest', { catalogSource: keyOf(key), error: describeError(error) });
      return;
    }
    if (entry.connection !== connection) return;
    if (entry.digest !== undefined && entry.digest !== digest) this.markStale(key, entry, 'the content digest changed');
    entry.digest = digest;
  }

  async remove(key: CatalogSourceKey): Promise<void> {
    const entry = this.entries.get(keyOf(key));
    if (!entry) return;
    this.entries.delete(keyOf(key));
    await this.drop(entry);
  }

  async close(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((entry) => this.drop(entry)));
  }

  private entry(key: CatalogSourceKey): SourceEntry {
    let entry = this.entries.get(keyOf(key));
    if (!entry) {
      entry = { epoch: 0, loadBackoff: new Backoff({ ...defaultCatalogLoadBackoff, ...this.options.loadBackoff }) };
      this.entries.set(keyOf(key), entry);
    }
    return entry;
  }

  private async drop(entry: SourceEntry): Promise<void> {
    const connection = entry.connection;
    entry.unwatch?.();
    Object.assign(entry, {
      connection: undefined,
      fingerprint: undefined,
      content: undefined,
      loadedAt: undefined,
      epoch: entry.epoch + 1,
      lastState: undefined,
      watched: undefined,
      everReady: undefined,
      connectedAt: undefined,
      unwatch: undefined,
      digest: undefined,
      loadFailure: undefined,
    } satisfies Partial<SourceEntry>);
    entry.loadBackoff.reset();
    await connection?.close().catch(() => undefined);
  }
}
