import { isSemanticallyEqual } from '@olm/controller-runtime';
import type { Selector } from '@olm/label-selector';
import { catalogKeyString, type CatalogKey, type PackageManifest } from './package-manifest.js';

export type ManifestEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A change to one CatalogSource's PackageManifest, as stored (in the catalog's own namespace). */
export interface ManifestEvent {
  readonly type: ManifestEventType;
  readonly manifest: PackageManifest;
  /** For MODIFIED: the manifest before the change (a watch with a selector may see it leave). */
  readonly previous?: PackageManifest;
  readonly revision: number;
}

export interface ManifestQuery {
  readonly labelSelector?: Selector;
  /** Only manifests with this name (`fieldSelector=metadata.name=…`). */
  readonly name?: string;
}

export interface PackageManifestStoreOptions {
  /** The global catalog namespace: its catalogs' packages are visible in every namespace. */
  readonly globalNamespace: string;
  /** How many recent changes a watch can resume from (older resourceVersions get 410 Gone). */
  readonly historySize?: number;
  /** The first revision; default the start time in milliseconds, so versions grow across restarts. */
  readonly initialRevision?: number;
}

interface StoredCatalog {
  readonly key: CatalogKey;
  priority: number;
  readonly manifests: Map<string, PackageManifest>;
}

function withoutResourceVersion(manifest: PackageManifest): unknown {
  const { resourceVersion: _ignored, ...metadata } = manifest.metadata;
  return { ...manifest, metadata };
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Every CatalogSource's PackageManifests, and what a namespace sees of them: its own catalogs'
 * packages and the global namespace's, reported in the requested namespace (as upstream does,
 * so clients do not complain about a namespace mismatch). A package in several visible catalogs
 * is listed once per catalog; `get` returns the first of them in list order: the requested
 * namespace's catalogs before the global ones (upstream's rule), then higher `spec.priority`,
 * then catalog namespace and name (upstream leaves this last tie to map order).
 */
export class PackageManifestStore {
  readonly globalNamespace: string;
  private readonly catalogs = new Map<string, StoredCatalog>();
  private readonly listeners = new Set<(event: ManifestEvent) => void>();
  private readonly history: ManifestEvent[] = [];
  private readonly historySize: number;
  private currentRevision: number;
  private oldestResumable: number;

  constructor(options: PackageManifestStoreOptions) {
    this.globalNamespace = options.globalNamespace;
    this.historySize = options.historySize ?? 1000;
    this.currentRevision = options.initialRevision ?? Date.now();
    this.oldestResumable = this.currentRevision;
  }

  get revision(): number {
    return this.currentRevision;
  }

  /** The catalogs that have manifests stored. */
  catalogKeys(): CatalogKey[] {
    return [...this.catalogs.values()].map((catalog) => catalog.key);
  }

  /** Replaces one catalog's manifests; unchanged ones keep their resourceVersion. Returns the changes. */
  replaceCatalog(key: CatalogKey, manifests: readonly PackageManifest[], options: { readonly priority?: number } = {}): ManifestEvent[] {
    const id = catalogKeyString(key);
    const stored = this.catalogs.get(id) ?? { key, priority: 0, manifests: new Map<string, PackageManifest>() };
    stored.priority = options.priority ?? 0;
    const events: ManifestEvent[] = [];
    const seen = new Set<string>();
    for (const manifest of manifests) {
      const name = manifest.metadata.name;
      seen.add(name);
      const previous = stored.manifests.get(name);
      if (previous && isSemanticallyEqual(withoutResourceVersion(previous), withoutResourceVersion(manifest))) continue;
      const revision = ++this.currentRevision;
      const next = { ...manifest, metadata: { ...manifest.metadata, resourceVersion: String(revision) } };
      stored.manifests.set(name, next);
      events.push(previous ? { type: 'MODIFIED', manifest: next, previous, revision } : { type: 'ADDED', manifest: next, revision });
    }
    for (const [name, previous] of stored.manifests) {
      if (seen.has(name)) continue;
      stored.manifests.delete(name);
      events.push(this.deletion(previous));
    }
    if (stored.manifests.size > 0) this.catalogs.set(id, stored);
    else this.catalogs.delete(id);
    this.publish(events);
    return events;
  }

  /** Drops a catalog's manifests (the CatalogSource is gone or its registry unreachable). */
  removeCatalog(key: CatalogKey): ManifestEvent[] {
    return this.replaceCatalog(key, []);
  }

  private deletion(previous: PackageManifest): ManifestEvent {
    const revision = ++this.currentRevision;
    return { type: 'DELETED', manifest: { ...previous, metadata: { ...previous.metadata, resourceVersion: String(revision) } }, revision };
  }

  private publish(events: readonly ManifestEvent[]): void {
    for (const event of events) {
      this.history.push(event);
      if (this.history.length > this.historySize) {
        const dropped = this.history.shift();
        if (dropped) this.oldestResumable = dropped.revision;
      }
      for (const listener of [...this.listeners]) {
        try {
          listener(event);
        } catch {
          // A broken watch connection must not stop the others from hearing about the change.
        }
      }
    }
  }

  /** Whether a manifest stored in its catalog's namespace is visible from `namespace` (undefined: all). */
  isVisible(manifest: PackageManifest, namespace: string | undefined): boolean {
    return namespace === undefined || manifest.metadata.namespace === namespace || manifest.metadata.namespace === this.globalNamespace;
  }

  /** The manifest as a client in `namespace` sees it: reported in that namespace. */
  asSeenFrom(manifest: PackageManifest, namespace: string | undefined): PackageManifest {
    return namespace === undefined || manifest.metadata.namespace === namespace ? manifest : { ...manifest, metadata: { ...manifest.metadata, namespace } };
  }

  static matches(manifest: PackageManifest, query: ManifestQuery): boolean {
    if (query.name !== undefined && manifest.metadata.name !== query.name) return false;
    return query.labelSelector === undefined || query.labelSelector.matches(manifest.metadata.labels);
  }

  /** What `namespace` (undefined: all namespaces) lists, by package name, then the `get` preference order. */
  list(namespace: string | undefined, query: ManifestQuery = {}): PackageManifest[] {
    const candidates: { manifest: PackageManifest; local: boolean; priority: number }[] = [];
    for (const catalog of this.catalogs.values()) {
      for (const manifest of catalog.manifests.values()) {
        if (!this.isVisible(manifest, namespace) || !PackageManifestStore.matches(manifest, query)) continue;
        candidates.push({ manifest, local: manifest.metadata.namespace === namespace, priority: catalog.priority });
      }
    }
    candidates.sort(
      (left, right) =>
        compareText(left.manifest.metadata.name, right.manifest.metadata.name) ||
        Number(right.local) - Number(left.local) ||
        right.priority - left.priority ||
        compareText(left.manifest.status.catalogSourceNamespace, right.manifest.status.catalogSourceNamespace) ||
        compareText(left.manifest.status.catalogSource, right.manifest.status.catalogSource),
    );
    return candidates.map((candidate) => this.asSeenFrom(candidate.manifest, namespace));
  }

  /** The package `name` as `namespace` sees it: the first of `list` with that name. */
  get(namespace: string | undefined, name: string): PackageManifest | undefined {
    return this.list(namespace, { name })[0];
  }

  /** Listens to every change (before visibility and namespace rewriting); returns the unsubscribe function. */
  subscribe(listener: (event: ManifestEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Changes after `revision`, or undefined when they are no longer retained (or the revision is unknown). */
  eventsSince(revision: number): ManifestEvent[] | undefined {
    if (revision < this.oldestResumable || revision > this.currentRevision) return undefined;
    return this.history.filter((event) => event.revision > revision);
  }
}
