import type {
  CatalogBundle,
  CatalogChannel,
  CatalogContent,
  CatalogPackage,
  ChannelEntry,
  DeprecationEntry,
  Property,
  PropertyType,
  RelatedImage,
} from '@olm/core';
import type { BlobPosition, Meta } from './declarative-config.js';
import { bundleManifests } from './grpc/model-to-api.js';

/** A deprecation notice attached to a package, channel or bundle (`olm.deprecations`). */
export interface Deprecation {
  readonly message: string;
}

export interface ModelBundle extends CatalogBundle {
  /** The channels that list this bundle, sorted. */
  readonly channels: readonly string[];
  /** Manifests from `olm.bundle.object` properties, as JSON text. */
  readonly objects: readonly string[];
  readonly deprecation?: Deprecation;
  readonly position?: BlobPosition;
}

export interface ModelChannel extends CatalogChannel {
  readonly deprecation?: Deprecation;
  readonly position?: BlobPosition;
}

export interface ModelPackage extends CatalogPackage {
  readonly channels: ReadonlyMap<string, ModelChannel>;
  readonly bundles: ReadonlyMap<string, ModelBundle>;
  readonly deprecation?: Deprecation;
  readonly deprecations?: readonly DeprecationEntry[];
  readonly position?: BlobPosition;
}

/**
 * A loaded catalog: packages → channels → entries, and bundles per package. Implements core's
 * `CatalogContent`, so the resolver and controllers consume it directly. Maps are sorted by name.
 */
export class Catalog implements CatalogContent {
  readonly packages: ReadonlyMap<string, ModelPackage>;
  /** Blobs of schemas other than the four olm.* ones, kept verbatim in load order. */
  readonly others: readonly Meta[];
  readonly #propertyTypes: ReadonlyMap<string, PropertyType>;
  readonly #parsed = new WeakMap<Property, unknown>();

  constructor(packages: ReadonlyMap<string, ModelPackage>, others: readonly Meta[], propertyTypes: ReadonlyMap<string, PropertyType>) {
    this.packages = packages;
    this.others = others;
    this.#propertyTypes = propertyTypes;
  }

  package(name: string): ModelPackage | undefined {
    return this.packages.get(name);
  }

  channel(packageName: string, channelName: string): ModelChannel | undefined {
    return this.packages.get(packageName)?.channels.get(channelName);
  }

  bundle(packageName: string, bundleName: string): ModelBundle | undefined {
    return this.packages.get(packageName)?.bundles.get(bundleName);
  }

  /** Every bundle of every package, packages and bundles in name order. */
  *bundles(): IterableIterator<ModelBundle> {
    for (const catalogPackage of this.packages.values()) yield* catalogPackage.bundles.values();
  }

  /**
   * The values of a bundle's properties of `type`, parsed by the property type registered for it
   * (built-ins plus those passed to the loader); raw JSON values for unknown types. Values that do
   * not parse are skipped (validation reports them).
   */
  properties<T = unknown>(bundle: CatalogBundle, type: string): T[] {
    const propertyType = this.#propertyTypes.get(type);
    const values: T[] = [];
    for (const property of bundle.properties) {
      if (property.type !== type) continue;
      if (propertyType === undefined) {
        values.push(property.value as T);
        continue;
      }
      if (!this.#parsed.has(property)) {
        try {
          this.#parsed.set(property, propertyType.parse(property.value));
        } catch {
          this.#parsed.set(property, undefined);
        }
      }
      const parsed = this.#parsed.get(property);
      if (parsed !== undefined) values.push(parsed as T);
    }
    return values;
  }

  /** The bundle's manifests (from `olm.bundle.object`), decoded. */
  bundleObjects(bundle: CatalogBundle): unknown[] {
    const objects = (bundle as Partial<ModelBundle>).objects ?? [];
    return objects.map((json) => JSON.parse(json) as unknown);
  }

  /**
   * The bundle's ClusterServiceVersion as JSON text, as the registry serves it: the CSV among its
   * `olm.bundle.object` manifests, else one synthesised from a single `olm.csv.metadata`
   * property; undefined when neither exists.
   */
  csvJson(bundle: CatalogBundle): string | undefined {
    const catalogPackage = this.packages.get(bundle.package);
    if (!catalogPackage) return undefined;
    return bundleManifests(catalogPackage, bundle).csvJson || undefined;
  }

}

export type { ChannelEntry, RelatedImage };
