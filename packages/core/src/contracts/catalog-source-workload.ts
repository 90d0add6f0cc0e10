import type { ImageSignatureVerifier } from './image-signatures.js';
import type { KubeClient } from './kube-client.js';
import type { CachedObject } from './reconcilers.js';
import type { Logger } from './runtime.js';

/** A status reason and message of a CatalogSource (`RegistryServerError`, `ConfigMapError`, …). */
export interface CatalogSourceProblem {
  readonly reason: string;
  readonly message: string;
}

/** What a workload is given for one CatalogSource on one pass of the catalog operator. */
export interface CatalogSourceWorkloadContext {
  /** The CatalogSource as read: its metadata, its spec, and the status this pass started from. */
  readonly source: CachedObject;
  /** The catalog operator's client. */
  readonly client: KubeClient;
  readonly now: Date;
  readonly logger: Logger;
  /** Verifies images against a signature policy, when a verifier is booted (the `imageSignatureVerifier` point). */
  readonly imageSignatureVerifier?: ImageSignatureVerifier;
  /** The content cached for this CatalogSource may be out of date (a new ConfigMap, a registry poll): it is loaded again before its next use. */
  contentChanged(): void;
  /** Nothing served before may be used (an image refused by its signature policy): the connection is closed and its content dropped. */
  stopServing(): Promise<void>;
}

/** How a workload's CatalogSource is reached after `ensure`, and what its status shows. */
export interface CatalogSourceWorkloadResult {
  /** The spec the connection is opened with (e.g. `address` set to the Service the workload runs); default the CatalogSource's spec. */
  readonly connectSpec?: Readonly<Record<string, unknown>>;
  /** Status fields to set; a field given as `undefined` is removed. */
  readonly status?: Readonly<Record<string, unknown>>;
  /** Something is wrong, yet the catalog is still connected to: the status reason and message. */
  readonly problem?: CatalogSourceProblem;
  /** Nothing can be served: the pass stops with this reason and message, `TRANSIENT_FAILURE`, and is retried soon. */
  readonly failure?: CatalogSourceProblem;
  /** The address `status.connectionState` shows (e.g. the Service's DNS name), whatever is dialed; default the connection's. */
  readonly address?: string;
  /**
   * Where to dial instead of `connectSpec.address` (e.g. a ready Pod behind the Service, for a controller
   * outside the cluster network); resolving undefined means nothing serves yet: `TRANSIENT_FAILURE`, no connection.
   */
  readonly dial?: () => Promise<string | undefined>;
  /** Look at the CatalogSource again within this time (e.g. its registry poll interval). */
  readonly recheckAfterMs?: number;
}

/**
 * What a catalog source type runs or reads in the cluster to serve a CatalogSource, for the catalog
 * operator (`ensure`, `release`, `forget`) and for readers of catalogs such as the packageserver (`locate`).
 */
export interface CatalogSourceWorkload {
  /** Makes what serves the catalog exist and up to date (a registry Pod and Service), or reads it (a ConfigMap); on every pass of a CatalogSource of the type. */
  ensure(context: CatalogSourceWorkloadContext): Promise<CatalogSourceWorkloadResult>;
  /**
   * Removes what `ensure` made for a CatalogSource that is now of another type; returns the status fields
   * to remove. Called on every pass of every CatalogSource of another type: cheap when its status shows nothing of this type's.
   */
  release?(context: CatalogSourceWorkloadContext): Promise<readonly string[]>;
  /** The CatalogSource was deleted: drops what is kept for it in memory (its cluster objects go with their owner). */
  forget?(key: { readonly namespace: string; readonly name: string }): void;
  /**
   * The spec to open a connection with now, for a reader that changes nothing (the packageserver):
   * where the catalog the operator runs is served, or undefined when nothing serves it yet.
   */
  locate?(source: CachedObject, client: KubeClient): Promise<Readonly<Record<string, unknown>> | undefined>;
}
