import type { CatalogBundle, CatalogConnection, CatalogContent } from '@olm/core';

/** Which bundle `loadBundle` fetches: a channel it is in, as a registry's `GetBundle` asks. */
export interface BundleKey {
  readonly packageName: string;
  readonly channelName: string;
  readonly name: string;
}

/**
 * A catalog connection that can leave bundle manifests out of a load and fetch them per bundle,
 * as a gRPC registry allows (`ListBundles` omits the manifests of bundles with an image, `GetBundle`
 * has them). A reader that needs the manifests of a few bundles only (the catalog operator installs a
 * handful of the hundreds it resolves over) skips fetching and parsing every CSV of the catalog,
 * which on a large catalog is most of its bytes.
 */
export interface ManifestsOnDemandConnection extends CatalogConnection {
  /**
   * `load()` without the manifests it fetches per bundle: a bundle with an image comes without
   * `olm.bundle.object` and `olm.csv.metadata` properties and related images, a package without
   * the icon taken from them. Everything else is as `load()` gives it.
   */
  loadWithoutManifests(): Promise<CatalogContent>;
  /** One bundle as `load()` gives it, manifests included. */
  loadBundle(bundle: BundleKey): Promise<CatalogBundle>;
}

/** Whether a connection (from any source type) offers `loadWithoutManifests` and `loadBundle`. */
export function hasManifestsOnDemand(connection: CatalogConnection): connection is ManifestsOnDemandConnection {
  const candidate = connection as Partial<ManifestsOnDemandConnection>;
  return typeof candidate.loadWithoutManifests === 'function' && typeof candidate.loadBundle === 'function';
}
