import { createKeyedExtensionPoint } from '../kernel/extension-point.js';
import type { CatalogSourceWorkload } from './catalog-source-workload.js';
import type { KubeClient } from './kube-client.js';
import type { CatalogBundle, CatalogContent } from './model.js';

/** gRPC connectivity states, as upstream reports them in `status.connectionState.lastObservedState`. */
export type ConnectionState = 'IDLE' | 'CONNECTING' | 'READY' | 'TRANSIENT_FAILURE' | 'SHUTDOWN';

/** The parts of a CatalogSource spec a source type reads (plus the object's identity). */
export interface CatalogSourceRequest {
  readonly name: string;
  readonly namespace: string;
  readonly spec: Readonly<Record<string, unknown>>;
  /** The caller's cluster client, for a type that reads the cluster (a ConfigMap catalog); absent offline (`olm resolve`). */
  readonly client?: KubeClient;
}

/** One bundle of a catalog, named the way a registry's `GetBundle` asks for it: in a channel it is in. */
export interface CatalogBundleKey {
  readonly packageName: string;
  readonly channelName: string;
  /** The bundle (CSV) name. */
  readonly name: string;
}

/**
 * An open catalog: it loads content on demand and reports its health.
 *
 * Manifests on demand (optional): a connection that can fetch bundles one at a time offers both
 * `loadWithoutManifests` and `loadBundle`, or neither; a reader uses them only when both are there
 * and falls back to `load()` otherwise. A reader that needs the manifests of a few bundles only (the
 * catalog operator installs a handful of the hundreds it resolves over) then skips fetching and
 * parsing every CSV of the catalog, which on a large catalog is most of its bytes.
 */
export interface CatalogConnection {
  /** The whole catalog, bundle manifests included. */
  load(): Promise<CatalogContent>;
  /**
   * `load()` that may leave out what only an install reads, for bundles with an image: their
   * `olm.bundle.object` and `olm.csv.metadata` properties and related images, and the package icon
   * taken from them. Everything else, and bundles without an image (whose manifests nothing else can
   * supply), is as `load()` gives it.
   */
  loadWithoutManifests?(): Promise<CatalogContent>;
  /** One bundle as `load()` gives it, manifests included; rejects when the catalog has no such bundle in that channel. */
  loadBundle?(bundle: CatalogBundleKey): Promise<CatalogBundle>;
  state(): ConnectionState;
  /**
   * Asks the source whether it serves now (a registry's gRPC health service), within `timeoutMs`;
   * resolves `TRANSIENT_FAILURE` rather than rejecting. Without it, health is `state()` after a load.
   */
  probe?(options: { readonly timeoutMs: number }): Promise<ConnectionState>;
  /**
   * Tells `listener` each state the connection moves to (a gRPC channel's connectivity) as it
   * happens, until the returned function is called or the connection closes. A reader learns of a
   * registry that went away, or came back (maybe restarted with other content), without asking.
   */
  watchState?(listener: (state: ConnectionState) => void): () => void;
  /**
   * A short fingerprint of what the source serves now, much cheaper than `load()` (a registry's
   * packages, default channels and channel heads): a different value means the content changed,
   * even when the connection never dropped. Rejects when the source cannot be read within `timeoutMs`.
   */
  contentDigest?(options: { readonly timeoutMs: number }): Promise<string>;
  /** The address clients use, when there is one (`host:port`). */
  readonly address?: string;
  close(): Promise<void>;
}

/**
 * A way to reach a catalog, keyed by CatalogSource `spec.sourceType` (`grpc`, `configmap`, …). The
 * catalog operator and the packageserver reach every type, built-in or not, through these members only.
 */
export interface CatalogSourceType {
  readonly sourceType: string;
  open(request: CatalogSourceRequest): Promise<CatalogConnection>;
  /**
   * Why `spec` cannot be served, in the words status shows (reason `SpecInvalidError`), or undefined.
   * Without it every spec of the type is accepted.
   */
  validate?(spec: Readonly<Record<string, unknown>>): string | undefined;
  /** What the type runs or reads in the cluster to serve a CatalogSource (a registry Pod and Service, a ConfigMap); none for a catalog reached as it is. */
  readonly workload?: CatalogSourceWorkload;
}

export const catalogSourceTypes = createKeyedExtensionPoint<CatalogSourceType>({
  id: 'olm.catalogSourceTypes',
  description: 'catalog source types by CatalogSource spec.sourceType',
  keyOf: (sourceType) => sourceType.sourceType,
  hint: 'boot the registry plugin (@olm/registry), which contributes grpc, configmap and directory sources',
});
