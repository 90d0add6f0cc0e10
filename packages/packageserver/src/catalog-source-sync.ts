import type { CatalogSource } from '@olm/api';
import type { CachedObject, CatalogSourceType, KubeClient, Logger } from '@olm/core';
import { describeError } from '@olm/core';
import { Backoff, canonicalJson, Informer, silentLogger } from '@olm/controller-runtime';
import { createRegistryClient } from '@olm/registry';
import { buildPackageManifest, type CatalogSourceSummary } from './build-package-manifest.js';
import { isConfigMapCatalog, readConfigMapCatalog } from './configmap-catalog.js';
import type { PackageManifestStore } from './package-manifest-store.js';
import { catalogKeyString, type CatalogKey, type PackageManifest } from './package-manifest.js';
import { readRegistry, type PackageQueries, type RegistryContents } from './read-registry.js';
import { readSourceTypeCatalog } from './source-type-catalog.js';

/** A connection to one registry; `close()` releases it. */
export type RegistryConnection = PackageQueries & { close(): void };

export interface CatalogSourceSyncOptions {
  readonly client: KubeClient;
  readonly store: PackageManifestStore;
  readonly logger?: Logger;
  /** Re-reads every registry this often even when its CatalogSource did not change. Default 5 minutes; `setRefreshInterval` changes it. */
  readonly refreshIntervalMs?: number;
  /** Retries an unreachable registry after 1 s, doubling up to this. Default 60 s. */
  readonly maxRetryIntervalMs?: number;
  /** Deadline of each registry call. Default 30 s. */
  readonly registryDeadlineMs?: number;
  /** Opens a registry connection; default the gRPC client of `@olm/registry`. */
  readonly connect?: (address: string) => RegistryConnection;
  /**
   * The booted catalog source types by `spec.sourceType` (the kernel's `catalogSourceTypes` point).
   * A CatalogSource of any type but `grpc` (a registry read over gRPC at its address) and
   * `configmap`/`internal` (read from its ConfigMap) is read through its type here, as the catalog
   * operator reads it, so a source type one plugin adds shows in the PackageManifests too.
   */
  readonly catalogSourceTypes?: ReadonlyMap<string, CatalogSourceType>;
}

/** The source types read without the point: gRPC registries (upstream's packageserver talks to them) and ConfigMap catalogs. */
const registrySourceTypes = new Set(['', 'grpc']);

/** The booted source type that reads `source`, when it is neither a gRPC registry nor a ConfigMap catalog. */
function pluggedSourceType(source: CatalogSource, types: ReadonlyMap<string, CatalogSourceType> | undefined): CatalogSourceType | undefined {
  const sourceType = source.spec?.sourceType ?? '';
  if (registrySourceTypes.has(sourceType) || isConfigMapCatalog(source)) return undefined;
  return types?.get(sourceType);
}

const catalogSourceKind = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' } as const;

/**
 * Where a CatalogSource's registry answers: `spec.address`, else the address the catalog operator
 * connected to (`status.connectionState.address`), else its registry Service
 * (`<service>.<namespace>.svc:<port>`). ConfigMap catalogs have none: they are read from their
 * ConfigMap (`readConfigMapCatalog`).
 */
export function registryAddress(source: CatalogSource): string | undefined {
  const service = source.status?.registryService;
  return (
    source.spec?.address ||
    source.status?.connectionState?.address ||
    (service?.serviceName && service.serviceNamespace && service.port ? `${service.serviceName}.${service.serviceNamespace}.svc:${service.port}` : undefined)
  );
}

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
    registryAddress(source),
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
  address?: string;
  registry?: RegistryConnection;
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
  private readonly connect: (address: string) => RegistryConnection;
  private refreshIntervalMs: number;
  private stopped = false;

  constructor(private readonly options: CatalogSourceSyncOptions) {
    this.logger = options.logger ?? silentLogger;
    this.informer = new Informer({ client: options.client, kind: catalogSourceKind, logger: this.logger });
    this.refreshIntervalMs = options.refreshIntervalMs ?? 5 * 60_000;
    const deadlineMs = options.registryDeadlineMs ?? 30_000;
    this.connect = options.connect ?? ((address) => createRegistryClient(address, { deadlineMs }));
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
    for (const entry of this.tracked.values()) {
      clearTimeout(entry.timer);
      entry.registry?.close();
    }
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
    entry.registry?.close();
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
    const from = isConfigMapCatalog(source)
      ? `ConfigMap ${entry.key.namespace}/${source.spec?.configMap ?? ''}`
      : pluggedSourceType(source, this.options.catalogSourceTypes)
        ? `sourceType ${source.spec?.sourceType ?? ''}`
        : registryAddress(source);
    const summary = catalogSourceSummary(source);
    try {
      const contents = await this.read(entry, source);
      if (this.tracked.get(id) !== entry || this.stopped) return;
      if (contents === undefined) {
        this.options.store.removeCatalog(entry.key);
        this.logger.debug('CatalogSource has no registry address yet; its packages are not served', { catalogSource: id });
        return;
      }
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
      // A fresh connection next time: gRPC's own reconnect backoff grows to minutes.
      entry.registry?.close();
      delete entry.registry;
      const retryMs = entry.backoff.next();
      this.logger.warn('cannot read the catalog; its packages are not served until it can be read', { catalogSource: id, from, error: describeError(error), retryInMs: retryMs });
      this.schedule(entry, retryMs);
    }
  }

  /**
   * The catalog's packages: a ConfigMap catalog's from its ConfigMap, any other's from its registry
   * over gRPC (the connection is kept until the address changes), a booted source type's through
   * that type; undefined without an address.
   */
  private async read(entry: Tracked, source: CatalogSource): Promise<RegistryContents | undefined> {
    const plugged = pluggedSourceType(source, this.options.catalogSourceTypes);
    const address = isConfigMapCatalog(source) || plugged ? undefined : registryAddress(source);
    if (entry.registry && entry.address !== address) {
      entry.registry.close();
      delete entry.registry;
    }
    entry.address = address;
    if (isConfigMapCatalog(source)) return readRegistry(await readConfigMapCatalog(this.options.client, source));
    if (plugged) return readRegistry(await readSourceTypeCatalog(plugged, source));
    if (address === undefined) return undefined;
    entry.registry ??= this.connect(address);
    return readRegistry(entry.registry);
  }
}
