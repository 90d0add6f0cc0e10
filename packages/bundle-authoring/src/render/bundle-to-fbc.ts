import { sortMapKeys } from '@olm/go-format';
import type { FbcBundle, FbcProperty, FbcRelatedImage } from '@olm/registry';
import { BundleAnnotations, csvsOf, type BundleContent, type ManifestObject } from '../bundle-content.js';
import { ownedApis, requiredApis, type Gvk } from '../rules/provided-apis.js';
import { csvMetadataOf } from './csv-metadata.js';
import { operatorImagesOf } from './operator-images.js';
import { isObject } from '../json-shapes.js';

const propertyList = (value: unknown): FbcProperty[] =>
  (Array.isArray(value) ? value : []).filter(isObject).map((property) => ({ type: String(property.type ?? ''), value: property.value }));

// Property values as Go marshals upstream's typed structs (field order), which is what properties are sorted by.
const gvkValue = (api: Gvk) => ({ group: api.group, kind: api.kind, version: api.version });
const valueText = (property: FbcProperty) => JSON.stringify(property.value === undefined ? null : property.value);

/** The `olm.package.required`, `olm.gvk.required` and other properties of `metadata/dependencies.yaml`. */
function dependencyProperties(content: BundleContent, required: Map<string, Gvk>): FbcProperty[] {
  const document = content.metadata.get('metadata/dependencies.yaml') ?? content.metadata.get('metadata/dependencies.yml');
  const properties: FbcProperty[] = [];
  for (const dependency of propertyList(isObject(document) ? document.dependencies : undefined)) {
    const value = isObject(dependency.value) ? dependency.value : {};
    if (dependency.type === 'olm.package') {
      properties.push({ type: 'olm.package.required', value: { packageName: value.packageName, versionRange: value.version } });
    } else if (dependency.type === 'olm.gvk') {
      const api = { group: String(value.group ?? ''), version: String(value.version ?? ''), kind: String(value.kind ?? '') };
      required.set(JSON.stringify(gvkValue(api)), api);
    } else {
      properties.push({ type: dependency.type, value: sortMapKeys(dependency.value ?? null) });
    }
  }
  return properties;
}

/**
 * A bundle as `opm render` writes it: name the CSV's, package from the annotations, `image` the
 * reference; properties `olm.package`, `olm.gvk` (owned APIs), `olm.gvk.required`, dependencies and
 * `metadata/properties.yaml`, sorted by type then value; then, for an image, one `olm.csv.metadata`
 * (for a directory, `image` '', one `olm.bundle.object` per manifest). Related images: the CSV's,
 * the bundle image and the operator's container images, sorted by image.
 */
export function bundleToFbc(content: BundleContent, image: string): FbcBundle {
  const csvEntry = csvsOf(content)[0];
  const csv: ManifestObject = csvEntry?.csv ?? { apiVersion: '', kind: 'ClusterServiceVersion' };
  const spec = isObject(csv.spec) ? csv.spec : {};
  const packageName = content.annotations?.values[BundleAnnotations.package] ?? '';
  const provided = new Map(ownedApis(csv).map((api) => [JSON.stringify(gvkValue(api)), api]));
  const required = new Map(requiredApis(csv).map((api) => [JSON.stringify(gvkValue(api)), api]));
  const others = dependencyProperties(content, required);
  let packageProperty: FbcProperty = { type: 'olm.package', value: { packageName, version: typeof spec.version === 'string' ? spec.version : '' } };
  const declared = content.metadata.get('metadata/properties.yaml') ?? content.metadata.get('metadata/properties.yml');
  const annotations = isObject(csv.metadata) && isObject(csv.metadata.annotations) ? csv.metadata.annotations : {};
  let annotated: unknown = [];
  try {
    annotated = typeof annotations['olm.properties'] === 'string' ? JSON.parse(annotations['olm.properties']) : [];
  } catch {
    // an unreadable annotation adds nothing, as upstream's loader skips it
  }
  for (const property of [...propertyList(isObject(declared) ? declared.properties : undefined), ...propertyList(annotated)]) {
    const value = isObject(property.value) ? property.value : {};
    if (property.type === 'olm.gvk') {
      const api = { group: String(value.group ?? ''), version: String(value.version ?? ''), kind: String(value.kind ?? '') };
      provided.set(JSON.stringify(gvkValue(api)), api);
    } else if (property.type === 'olm.package') {
      packageProperty = { type: 'olm.package', value: { packageName: value.packageName, version: value.version } };
    } else {
      others.push({ type: property.type, value: sortMapKeys(property.value ?? null) });
    }
  }
  const properties: FbcProperty[] = [
    packageProperty,
    ...[...provided.values()].map((api) => ({ type: 'olm.gvk', value: gvkValue(api) })),
    ...[...required.values()].map((api) => ({ type: 'olm.gvk.required', value: gvkValue(api) })),
    ...others,
  ].sort((a, b) => (a.type !== b.type ? (a.type < b.type ? -1 : 1) : valueText(a) < valueText(b) ? -1 : valueText(a) > valueText(b) ? 1 : 0));
  const objects = content.manifests.flatMap((manifest) => manifest.objects);
  const manifestProperties: FbcProperty[] =
    image === ''
      ? objects.map((object) => ({ type: 'olm.bundle.object', value: { data: Buffer.from(JSON.stringify(object)).toString('base64') } }))
      : [{ type: 'olm.csv.metadata', value: csvMetadataOf(csv) }];
  const name = isObject(csv.metadata) && typeof csv.metadata.name === 'string' ? csv.metadata.name : '';
  return {
    schema: 'olm.bundle',
    name,
    package: packageName,
    image,
    properties: [...properties, ...manifestProperties],
    relatedImages: relatedImagesOf(spec, image),
    objects: [],
    csvJson: '',
    position: { file: image === '' ? csvEntry?.file ?? '' : image },
  };
}

/** The CSV's `spec.relatedImages`, then the bundle image and the operator's images not yet named; sorted by image. */
function relatedImagesOf(spec: Record<string, unknown>, image: string): FbcRelatedImage[] {
  const images: FbcRelatedImage[] = (Array.isArray(spec.relatedImages) ? spec.relatedImages : [])
    .filter(isObject)
    .map((related) => ({ name: typeof related.name === 'string' ? related.name : '', image: typeof related.image === 'string' ? related.image : '' }));
  const seen = new Set(images.map((related) => related.image));
  for (const extra of [image, ...operatorImagesOf(spec)]) {
    if (extra === '' || seen.has(extra)) continue;
    seen.add(extra);
    images.push({ name: '', image: extra });
  }
  return images.sort((a, b) => (a.image < b.image ? -1 : a.image > b.image ? 1 : 0));
}
