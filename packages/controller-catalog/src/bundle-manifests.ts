import { OlmError, type CatalogBundle, type KubeObject } from '@olm/core';
import { bundleObjectPropertyType } from '@olm/registry';

/**
 * A bundle's manifests, decoded from its `olm.bundle.object` properties (as a catalog directory or
 * a registry server gives them). Bundles that only name an image would need unpacking, which this
 * controller does not do: they fail with a message that says so.
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
      `bundle ${bundle.name} carries no manifests (olm.bundle.object properties); unpacking bundle image ${JSON.stringify(bundle.image)} is not supported`,
      { details: { bundle: bundle.name, image: bundle.image } },
    );
  }
  return manifests;
}
