import { BundleImageBudget, BundleImageErrorCodes, defaultBundleImageLimits, type BundleImageLimits } from '@olm/bundle-puller';
import { OlmError } from '@olm/core';
import { defaultCatalogLimits } from '@olm/registry';

/**
 * Bounds of one catalog image: the bundle puller's image limits, sized for a catalog image (built on
 * an `opm` base image of ~100 MB whose layers are read and skipped), and the file-based catalog under
 * the configs directory bounded as the registry's loader bounds a catalog (its `defaultCatalogLimits`).
 */
export const defaultCatalogImageLimits: BundleImageLimits = Object.freeze({
  maxLayers: defaultBundleImageLimits.maxLayers,
  maxCompressedBytes: 1024 * 1024 * 1024,
  maxUncompressedBytes: 2 * 1024 * 1024 * 1024,
  maxFileBytes: defaultCatalogLimits.maxFileBytes,
  maxManifestBytes: defaultCatalogLimits.maxCatalogDecodedBytes,
  maxFiles: 20_000,
});

const units: Readonly<Record<keyof BundleImageLimits, string>> = {
  maxLayers: 'layers',
  maxCompressedBytes: 'compressed bytes',
  maxUncompressedBytes: 'uncompressed bytes',
  maxFileBytes: 'bytes in one catalog file',
  maxManifestBytes: 'bytes of catalog files',
  maxFiles: 'entries in the configs directory',
};

/** The bundle puller's image budget, its refusals worded for a catalog image and naming the controller's options. */
export class CatalogImageBudget extends BundleImageBudget {
  override fail(limit: keyof BundleImageLimits, where: string, found: string): OlmError {
    return new OlmError(
      BundleImageErrorCodes.limitExceeded,
      `catalog image ${this.image} is over its limit of ${this.limits[limit]} ${units[limit]}: ${where} ${found}; ` +
        `if the catalog really is this large, raise the ClusterCatalog controller's option catalogImageLimits.${limit} (createControllerClusterCatalogPlugin)`,
      { details: { limit, value: this.limits[limit] } },
    );
  }
}
