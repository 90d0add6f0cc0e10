/**
 * Shared model types: what the registry produces and the resolver and controllers consume.
 * Plain read-only data, so any package can build or read them without the others' code.
 */

/** A typed property of a bundle (`olm.package`, `olm.gvk`, …); `value` is decoded JSON. */
export interface Property {
  readonly type: string;
  readonly value: unknown;
}

/** Where a catalog lives in the cluster: a CatalogSource's name and namespace. */
export interface CatalogRef {
  readonly name: string;
  readonly namespace: string;
}

/** One entry of a channel's update graph. */
export interface ChannelEntry {
  readonly name: string;
  readonly replaces?: string;
  readonly skips?: readonly string[];
  /** A blang/semver range (not npm's grammar). */
  readonly skipRange?: string;
}

export interface CatalogChannel {
  readonly name: string;
  readonly package: string;
  readonly entries: readonly ChannelEntry[];
  readonly properties?: readonly Property[];
}

export interface RelatedImage {
  readonly name: string;
  readonly image: string;
}

export interface CatalogBundle {
  /** The bundle (CSV) name, e.g. `etcdoperator.v0.9.4`. */
  readonly name: string;
  readonly package: string;
  /** Bundle image pull spec; may be empty when the bundle carries `olm.bundle.object` manifests. */
  readonly image: string;
  /** The `olm.package` property's version (strict semver). */
  readonly version: string;
  /** The `olm.package` property's optional release. */
  readonly release?: string;
  readonly properties: readonly Property[];
  readonly relatedImages?: readonly RelatedImage[];
}

/** An `olm.deprecations` entry: what it refers to and why it is deprecated. */
export interface DeprecationEntry {
  readonly reference: { readonly schema: string; readonly name?: string };
  readonly message: string;
}

export interface CatalogPackage {
  readonly name: string;
  readonly defaultChannel: string;
  readonly description?: string;
  readonly icon?: { readonly base64data: string; readonly mediatype: string };
  readonly properties?: readonly Property[];
  readonly channels: ReadonlyMap<string, CatalogChannel>;
  readonly bundles: ReadonlyMap<string, CatalogBundle>;
  readonly deprecations?: readonly DeprecationEntry[];
}

/** The content of one catalog: packages, their channels and bundles. */
export interface CatalogContent {
  readonly packages: ReadonlyMap<string, CatalogPackage>;
}
