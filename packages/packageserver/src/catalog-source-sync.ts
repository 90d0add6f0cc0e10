import type { CatalogSource } from '@olm/api';
import type { CachedObject, CatalogSourceType, KubeClient, Logger } from '@olm/core';
import { describeError } from '@olm/core';
import { Backoff, canonicalJson, Informer, silentLogger } from '@olm/controller-runtime';
import { buildPackageManifest, type CatalogSourceSummary } from './build-package-manifest.js';
import type { PackageManifestStore } from './package-manifest-store.js';
import { catalogKeyString, type CatalogKey, type PackageManifest } from './package-manifest.js';
import { readRegistry, type RegistryContents } from './read-registry.js';
import { readSourceTypeCatalog } from './source-type-catalog.js';

export interface CatalogSourceSyncOptions {
  readonly client: KubeClient;
  readonly store: PackageManifestStore;
  readonly logger?: Logger;
  /** Re-reads every registry this often even when its CatalogSource did not change. Default 5 minutes; `setRefreshInterval` changes it. */
  readonly refreshIntervalMs?: number;
  /** Retries an unreachable registry after 1 s, doubling up to this. Default 60 s. */
  readonly maxRetryIntervalMs?: number;
  /**
   * The booted catalog source types by `spec.sourceType` (the kernel's `catalogSourceTypes` point). Every
   * CatalogSource is read through its type, as the catalog operator reads it (a gRPC registry, its image's
   * registry Service, its ConfigMap, a type a plugin adds), with the client for types that read the cluster.
   */
  readonly catalogSourceTypes: ReadonlyMap<string, CatalogSourceType>;
}

const catalogSourceKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' } as const;

export function catalogSourceSummary(source: CatalogSource): CatalogSourceSummary & { readonly priority: number } {
  return {
    namespace: source.metadata?.namespace ?? '',
    name: source.metadata?.name ?? '',
    ...(source.metadata?.labels ? { labels: source.metadata.labels } : {}),
    ...(typeof source.metadata?.creationTimestamp === 'string' ? { creationTimestamp: source.metadata.creationTimestamp } : {}),
    ...(source.spec?.displayName !== undefined ? { displayName: source.spec.displayName } : {}),
    ...(source.spec?.publisher !== undefined ? { publisher: source.spec.publisher } : {}),
    priority: typeof source.spec?.priority === 'number' ? source.spec.priority : 0,
  };
}

/** What of a CatalogSource shows in its PackageManifests or where they come from: a change means re-read. */
function fingerprint(source: CatalogSource): string {
  return canonicalJson([
    catalogSourceSummary(source),
    source.metadata?.annotations ?? {},
    source.spec,
    // Where the catalog operator serves it (an image's registry Service) and connected to.
    source.status?.registryService,
    source.status?.connectionState?.address,
    source.status?.connectionState?.lastObservedState === 'READY',
    // A new connection to the same address: the registry behind it restarted, maybe with new content.
    source.status?.connectionState?.lastConnect,
    // The catalog operator polled the catalog image (and may have a new registry pod behind the same address).
    source.status?.latestImageRegistryPoll,
    // The catalog operator saw the ConfigMap of a ConfigMap catalog change.
    source.status?.configMapReference?.resourceVersion,
  ]);
}

interface Tracked {
  readonly key: CatalogKey;
  fingerprint: string;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  again: boolean;
  readonly backoff: Backoff;
  /** Set once the first read finished, well or not. */
  attempted: boolean;
  /** When the registry was last read well; the next refresh is due a refresh interval later. */
  readAt?: number;
}

/**
 * Keeps the store in step with the cluster's CatalogSources: watches them (all namespaces), reads
 * each one's registry when it appears or changes and every `refreshIntervalMs`, drops its
 * manifests when it is deleted or its registry cannot be read (as upstream does on a failed
 * connection), and retries unreachable registries with backoff.
 */
export class CatalogSourceSync {
  private readonly informer: Informer;
  private readonly tracked = new Map<string, Tracked>();
  private readonly logger: Logger;
  private refreshIntervalMs: number;
  private stopped = false;

  constructor(private readonly options: CatalogSourceSyncOptions) {
    this.logger = options.logger ?? silentLogger;
    this.informer = new Informer({ client: options.client, kind: catalogSourceKind, logger: this.logger });
    this.refreshIntervalMs = options.refreshIntervalMs ?? 5 * 60_000;
    this.informer.addEventHandler({
      onAdd: (object) => this.observe(object),
      onUpdate: (_old, object) => this.observe(object),
      onDelete: (object) => this.forget(object),
    });
  }

  start(): void {
    this.informer.start();
  }

  /** Whether the CatalogSources were listed and every registry read once (successfully or not). */
  get isSynced(): boolean {
    return this.informer.hasSynced && [...this.tracked.values()].every((entry) => entry.attempted);
  }

  /** Resolves once `isSynced`; rejects after `timeoutMs`. */
  async waitForSync(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await this.informer.waitForSync(timeoutMs);
    while (!this.isSynced) {
      if (Date.now() > deadline) throw new Error(`the registries of the CatalogSources were not all read within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** How often every registry is re-read; a change reschedules the pending refreshes (counted from each one's last read). */
  get refreshInterval(): number {
    return this.refreshIntervalMs;
  }

  setRefreshInterval(milliseconds: number): void {
    if (milliseconds === this.refreshIntervalMs) return;
    this.refreshIntervalMs = milliseconds;
    for (const entry of this.tracked.values()) {
      // Only entries waiting for a refresh: one being read or retrying after an error keeps its schedule.
      if (entry.readAt === undefined || entry.running) continue;
      this.schedule(entry, Math.max(0, entry.readAt + milliseconds - Date.now()));
    }
  }

  /** Reads a CatalogSource's registry again now. */
  refresh(key: CatalogKey): Promise<void> {
    const entry = this.tracked.get(catalogKeyString(key));
    if (!entry) return Promise.resolve();
    this.trigger(entry);
    return entry.running ?? Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer.stop();
    const running = [...this.tracked.values()].map((entry) => entry.running);
    for (const entry of this.tracked.values()) clearTimeout(entry.timer);
    await Promise.allSettled(running);
  }

  private observe(object: CachedObject): void {
    const source = object as CatalogSource & CachedObject;
    const key = { namespace: source.metadata?.namespace ?? '', name: source.metadata?.name ?? '' };
    const id = catalogKeyString(key);
    const print = fingerprint(source);
    const entry = this.tracked.get(id);
    if (entry && entry.fingerprint === print) return;
    const next = entry ?? { key, fingerprint: print, again: false, backoff: new Backoff({ initialMs: 1000, maxMs: this.options.maxRetryIntervalMs ?? 60_000 }), attempted: false };
    next.fingerprint = print;
    next.backoff.reset();
    this.tracked.set(id, next);
    this.trigger(next);
  }

  private forget(object: CachedObject): void {
    const id = catalogKeyString({ namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' });
    const entry = this.tracked.get(id);
    if (!entry) return;
    this.tracked.delete(id);
    clearTimeout(entry.timer);
    this.options.store.removeCatalog(entry.key);
    this.logger.info('CatalogSource deleted, its packages removed', { catalogSource: id });
  }

  private trigger(entry: Tracked): void {
    if (this.stopped) return;
    clearTimeout(entry.timer);
    if (entry.running) {
      entry.again = true;
      return;
    }
    entry.running = this.sync(entry)
      .catch((error: unknown) => this.logger.error('CatalogSource sync failed', { catalogSource: catalogKeyString(entry.key), error: describeError(error) }))
      .finally(() => {
        entry.running = undefined;
        entry.attempted = true;
        if (entry.again && this.tracked.get(catalogKeyString(entry.key)) === entry) {
          entry.again = false;
          this.trigger(entry);
        }
      });
  }

  private schedule(entry: Tracked, delayMs: number): void {
    if (this.stopped || this.tracked.get(catalogKeyString(entry.key)) !== entry) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => this.trigger(entry), delayMs);
    entry.timer.unref();
  }

  private async sync(entry: Tracked): Promise<void> {
    const id = catalogKeyString(entry.key);
    const source = this.informer.indexer.get(id) as (CatalogSource & CachedObject) | undefined;
    if (!source) return;
    const summary = catalogSourceSummary(source);
    let from = `sourceType ${source.spec?.sourceType ?? ''}`;
    try {
      const spec = await this.locate(source);
      if (this.tracked.get(id) !== entry || this.stopped) return;
      if (spec === undefined) {
        this.options.store.removeCatalog(entry.key);
        this.logger.debug('CatalogSource has no registry address yet, or no booted source type; its packages are not served', { catalogSource: id, from });
        return;
      }
      from = describeWhere(source, spec);
      const contents = await this.read(source, spec);
      if (this.tracked.get(id) !== entry || this.stopped) return;
      const manifests: PackageManifest[] = [];
      const problems = [...contents.problems];
      for (const pkg of contents.packages) {
        const built = buildPackageManifest(summary, pkg);
        problems.push(...built.problems);
        if (built.manifest) manifests.push(built.manifest);
      }
      const changes = this.options.store.replaceCatalog(entry.key, manifests, { priority: summary.priority });
      if (problems.length > 0) this.logger.warn('some packages or channels of the catalog were left out', { catalogSource: id, from, problems: problems.slice(0, 20), count: problems.length });
      this.logger.info('catalog read', { catalogSource: id, from, packages: manifests.length, changes: changes.length });
      entry.backoff.reset();
      entry.readAt = Date.now();
      this.schedule(entry, this.refreshIntervalMs);
    } catch (error) {
      if (this.tracked.get(id) !== entry || this.stopped) return;
      this.options.store.removeCatalog(entry.key);
      delete entry.readAt;
      const retryMs = entry.backoff.next();
      this.logger.warn('cannot read the catalog; its packages are not served until it can be read', { catalogSource: id, from, error: describeError(error), retryInMs: retryMs });
      this.schedule(entry, retryMs);
    }
  }

  /** The spec to open the catalog with: where its type's workload serves it, or its own; undefined when nothing serves it yet or no booted type has its name. */
  private async locate(source: CatalogSource & CachedObject): Promise<Readonly<Record<string, unknown>> | undefined> {
    const type = this.options.catalogSourceTypes.get(source.spec?.sourceType ?? '');
    if (!type) return undefined;
    return type.workload?.locate ? type.workload.locate(source, this.options.client) : { ...source.spec };
  }

  /** The catalog's packages, read through its source type with a connection opened for this read only. */
  private async read(source: CatalogSource, spec: Readonly<Record<string, unknown>>): Promise<RegistryContents> {
    const type = this.options.catalogSourceTypes.get(source.spec?.sourceType ?? '');
    if (!type) throw new Error(`unknown sourcetype: ${source.spec?.sourceType ?? ''}`);
    return readRegistry(await readSourceTypeCatalog(type, source, { spec, client: this.options.client }));
  }
}

/** Where a catalog is read from, for logs: the address dialed, or the ConfigMap the CatalogSource names. */
function describeWhere(source: CatalogSource, spec: Readonly<Record<string, unknown>>): string {
  if (typeof spec.address === 'string' && spec.address) return spec.address;
  if (source.spec?.configMap) return `ConfigMap ${source.metadata?.namespace ?? ''}/${source.spec.configMap}`;
  return `sourceType ${source.spec?.sourceType ?? ''}`;
}
