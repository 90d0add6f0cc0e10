import { OlmError, type CatalogBundle, type KubeObject } from '@olm/core';
import { bundleObjectPropertyType } from '@olm/registry';

/** A bundle whose manifests only its image holds (no `olm.bundle.object` properties): the `bundlePuller` point unpacks it. */
export function isImageOnly(bundle: CatalogBundle): boolean {
  return bundle.image !== '' && !bundle.properties.some((property) => property.type === 'olm.bundle.object');
}

/**
 * A bundle's manifests, decoded from its `olm.bundle.object` properties (as a catalog directory or
 * a registry server gives them). Bundles that only name an image are unpacked by the `bundlePuller`
 * instead; a bundle with neither fails with a message that says so.
 */
export function bundleManifests(bundle: CatalogBundle): KubeObject[] {
  const manifests: KubeObject[] = [];
  for (const property of bundle.properties) {
    if (property.type !== 'olm.bundle.object') continue;
    const parsed = bundleObjectPropertyType.parse(property.value);
    if (parsed.kind !== 'data') continue;
    const manifest = parsed.manifest as KubeObject | null;
    if (manifest && typeof manifest === 'object' && typeof manifest.kind === 'string') manifests.push(manifest);
  }
  if (!manifests.some((manifest) => manifest.kind === 'ClusterServiceVersion')) {
    throw new OlmError(
      'OLM_CATALOG_BUNDLE_NOT_UNPACKED',
      manifests.length === 0 && !bundle.image
        ? `bundle ${bundle.name} carries no manifests: it has neither olm.bundle.object properties nor a bundle image; fix the catalog`
        : `bundle ${bundle.name} has no ClusterServiceVersion among its olm.bundle.object properties; add the CSV to the catalog`,
      { details: { bundle: bundle.name, image: bundle.image } },
    );
  }
  return manifests;
}
