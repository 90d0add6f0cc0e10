import type { CatalogBundle, CatalogPackage } from '@olm/core';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Synthesises the ClusterServiceVersion JSON the registry serves for a bundle that carries
 * exactly one `olm.csv.metadata` property instead of `olm.bundle.object` manifests (upstream's
 * model-to-API conversion): metadata and spec fields from the property, the package icon, the
 * bundle version and related images, and a stub `deployment` install strategy. Undefined when the
 * bundle has no (or more than one) `olm.csv.metadata`.
 */
export function synthesizeCsvJson(bundle: CatalogBundle, catalogPackage?: CatalogPackage): string | undefined {
  const metadataProperties = bundle.properties.filter((property) => property.type === 'olm.csv.metadata');
  if (metadataProperties.length !== 1) return undefined;
  const metadata = metadataProperties[0]?.value;
  if (!isObject(metadata)) return undefined;
  const csvMetadata: Record<string, unknown> = { name: bundle.name };
  if (isObject(metadata.annotations)) csvMetadata.annotations = metadata.annotations;
  if (isObject(metadata.labels)) csvMetadata.labels = metadata.labels;
  const spec: Record<string, unknown> = {};
  const copy = (from: string, to: string = from): void => {
    if (metadata[from] !== undefined && metadata[from] !== null) spec[to] = metadata[from];
  };
  copy('apiServiceDefinitions', 'apiservicedefinitions');
  copy('crdDescriptions', 'customresourcedefinitions');
  const description = typeof metadata.description === 'string' && metadata.description !== '' ? metadata.description : catalogPackage?.description;
  if (description !== undefined && description !== '') spec.description = description;
  copy('displayName');
  if (catalogPackage?.icon !== undefined) spec.icon = [{ base64data: catalogPackage.icon.base64data, mediatype: catalogPackage.icon.mediatype }];
  spec.install = { strategy: 'deployment', spec: { deployments: null } };
  copy('installModes');
  copy('keywords');
  copy('links');
  copy('maintainers');
  copy('maturity');
  copy('minKubeVersion');
  copy('nativeAPIs', 'nativeAPIs');
  copy('provider');
  if (bundle.relatedImages !== undefined && bundle.relatedImages.length > 0) spec.relatedImages = bundle.relatedImages;
  spec.version = bundle.version;
  return JSON.stringify({
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: csvMetadata,
    spec,
  });
}
