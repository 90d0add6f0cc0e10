import type { CatalogBundle, CatalogChannel, CatalogPackage, ChannelEntry, Property } from '@olm/core';
import { decodeGoBase64 } from '../go-base64.js';
import type { ApiBundle, ApiDeprecation, ApiGroupVersionKind, ApiTypedValue } from './api-types.js';
import { queryError } from './errors.js';
import { goJson, goStruct } from '@olm/go-format';
import { loadYamlDocument } from '../parse-file.js';

/** Property types the API never lists in `properties` (too large for CSV annotations upstream). */
const hiddenPropertyTypes = new Set(['olm.bundle.object', 'olm.csv.metadata']);

const csvApiVersion = 'operators.coreos.com/v1alpha1';
const csvKind = 'ClusterServiceVersion';

/**
 * Converts one channel membership of a bundle to the API message, as `opm serve` stores it:
 * replaces/skips/skipRange from the channel entry, manifests decoded from `olm.bundle.object` or a
 * CSV synthesised from `olm.csv.metadata`. Throws when the bundle cannot be served.
 */
export function catalogBundleToApiBundle(pkg: CatalogPackage, channel: CatalogChannel, entry: ChannelEntry, bundle: CatalogBundle): ApiBundle {
  return { ...apiBundleWithoutManifests(pkg, channel, entry, bundle), ...bundleManifests(pkg, bundle) };
}

/** The manifests of a bundle as the API carries them: the CSV JSON and every object. */
export interface ApiManifests {
  readonly csvJson: string;
  readonly object: readonly string[];
}

/** Everything but the manifests (cheap); checks what makes a bundle unservable. */
export function apiBundleWithoutManifests(pkg: CatalogPackage, channel: CatalogChannel, entry: ChannelEntry, bundle: CatalogBundle): ApiBundle {
  const properties = bundle.properties;
  const packageProperties = properties.filter((property) => property.type === 'olm.package');
  if (packageProperties.length !== 1) {
    throw queryError(`parse properties: expected exactly 1 property of type "olm.package", found ${packageProperties.length}`);
  }
  const csvMetadatas = properties.filter((property) => property.type === 'olm.csv.metadata');
  if (csvMetadatas.length > 1) {
    throw queryError(`parse properties: expected at most 1 property of type "olm.csv.metadata", found ${csvMetadatas.length}`);
  }
  const deprecation = deprecationOf(pkg, 'olm.bundle', bundle.name);
  return {
    csvName: bundle.name,
    packageName: pkg.name,
    channelName: channel.name,
    csvJson: '',
    object: [],
    bundlePath: bundle.image,
    providedApis: gvksOf(properties, 'olm.gvk'),
    requiredApis: gvksOf(properties, 'olm.gvk.required'),
    version: packageVersion(bundle),
    skipRange: entry.skipRange ?? '',
    dependencies: dependenciesOf(properties),
    properties: properties
      .filter((property) => !hiddenPropertyTypes.has(property.type))
      .map((property) => ({ type: property.type, value: goJson(property.value, { escapeHtml: false }) })),
    replaces: entry.replaces ?? '',
    skips: [...(entry.skips ?? [])],
    ...(deprecation ? { deprecation } : {}),
  };
}

/**
 * The manifests: decoded from `olm.bundle.object` (CSV chosen by kind), else a CSV synthesised
 * from the one `olm.csv.metadata` (then also the only object). Costly, so callers cache it.
 */
export function bundleManifests(pkg: CatalogPackage, bundle: CatalogBundle): ApiManifests {
  const objects = bundleObjects(pkg, bundle);
  const csvJson = findCsvJson(objects);
  const csvMetadatas = bundle.properties.filter((property) => property.type === 'olm.csv.metadata');
  if (csvJson === '' && csvMetadatas.length === 1) {
    const synthesised = goJson(synthesiseCsvFromMetadata(pkg, bundle, packageVersion(bundle), asRecord(csvMetadatas[0]?.value)), { sortMapKeys: false });
    return { csvJson: synthesised, object: objects.length === 0 ? [synthesised] : objects };
  }
  return { csvJson, object: objects };
}

function packageVersion(bundle: CatalogBundle): string {
  const value = asRecord(bundle.properties.find((property) => property.type === 'olm.package')?.value);
  return typeof value.version === 'string' ? value.version : bundle.version;
}

/** The deprecation message of a package (`olm.package`, no name), channel or bundle, if any. */
export function deprecationOf(pkg: CatalogPackage, schema: string, name: string | undefined): ApiDeprecation | undefined {
  const entry = pkg.deprecations?.find(
    (candidate) => candidate.reference.schema === schema && (candidate.reference.name ?? '') === (name ?? ''),
  );
  return entry ? { message: entry.message } : undefined;
}

function gvksOf(properties: readonly Property[], type: string): ApiGroupVersionKind[] {
  return properties
    .filter((property) => property.type === type)
    .map((property) => {
      const value = asRecord(property.value);
      return { group: stringOf(value.group), version: stringOf(value.version), kind: stringOf(value.kind), plural: '' };
    });
}

/** Legacy required properties become dependencies; `olm.constraint` does not (as upstream). */
function dependenciesOf(properties: readonly Property[]): ApiTypedValue[] {
  const dependencies: ApiTypedValue[] = [];
  for (const property of properties) {
    if (property.type === 'olm.gvk.required') {
      dependencies.push({ type: 'olm.gvk', value: goJson(property.value, { escapeHtml: false }) });
    } else if (property.type === 'olm.package.required') {
      const value = asRecord(property.value);
      // Upstream rebuilds an olm.package value: field order packageName, version (the range).
      dependencies.push({
        type: 'olm.package',
        value: goJson(goStruct([['packageName', stringOf(value.packageName)], ['version', stringOf(value.versionRange)]]), { escapeHtml: false }),
      });
    }
  }
  return dependencies;
}

/** Each `olm.bundle.object` manifest as compact JSON text (keys sorted, HTML escaped: Go's YAML→JSON). */
function bundleObjects(pkg: CatalogPackage, bundle: CatalogBundle): string[] {
  const objects: string[] = [];
  bundle.properties.forEach((property, index) => {
    if (property.type !== 'olm.bundle.object') return;
    const data = asRecord(property.value).data;
    try {
      if (typeof data !== 'string') throw new Error('value has no string "data"');
      const text = decodeGoBase64(data).toString('utf8');
      objects.push(goJson(loadYamlDocument(text)));
    } catch (error) {
      throw queryError(
        `read bundle objects: package "${pkg.name}", bundle "${bundle.name}": parse property at index ${index} as bundle object: ${(error as Error).message}`,
      );
    }
  });
  return objects;
}

function findCsvJson(objects: readonly string[]): string {
  for (const text of objects) {
    const kind = (JSON.parse(text) as { kind?: unknown } | null)?.kind;
    if (kind === csvKind) return text;
  }
  return '';
}

/**
 * A CSV built from `olm.csv.metadata`, shaped like upstream's (a typed CSV marshalled by Go): the
 * metadata fields, package icon, a stub `deployment` install strategy, version and related images.
 */
export function synthesiseCsvFromMetadata(pkg: CatalogPackage, bundle: CatalogBundle, version: string, metadata: Record<string, unknown>): unknown {
  const objectMeta: Record<string, unknown> = { name: bundle.name, creationTimestamp: null };
  if (isNonEmptyRecord(metadata.labels)) objectMeta.labels = sortedRecord(metadata.labels);
  if (isNonEmptyRecord(metadata.annotations)) objectMeta.annotations = sortedRecord(metadata.annotations);

  // Go marshals the stub strategy's empty details struct too: `"spec":{"deployments":null}`.
  const spec: Record<string, unknown> = { install: { strategy: 'deployment', spec: { deployments: null } } };
  if (version !== '') spec.version = version;
  if (isPresent(metadata.maturity)) spec.maturity = metadata.maturity;
  spec.customresourcedefinitions = metadata.crdDescriptions ?? {};
  spec.apiservicedefinitions = metadata.apiServiceDefinitions ?? {};
  if (isPresent(metadata.nativeAPIs)) spec.nativeAPIs = metadata.nativeAPIs;
  if (isPresent(metadata.minKubeVersion)) spec.minKubeVersion = metadata.minKubeVersion;
  spec.displayName = metadata.displayName ?? '';
  const description = isPresent(metadata.description) ? metadata.description : pkg.description;
  if (isPresent(description)) spec.description = description;
  if (isPresent(metadata.keywords)) spec.keywords = metadata.keywords;
  if (isPresent(metadata.maintainers)) spec.maintainers = metadata.maintainers;
  spec.provider = metadata.provider ?? {};
  if (isPresent(metadata.links)) spec.links = metadata.links;
  if (pkg.icon) spec.icon = [{ base64data: pkg.icon.base64data, mediatype: pkg.icon.mediatype }];
  if (isPresent(metadata.installModes)) spec.installModes = metadata.installModes;
  if (bundle.relatedImages && bundle.relatedImages.length > 0) {
    spec.relatedImages = bundle.relatedImages.map((image) => ({ name: image.name, image: image.image }));
  }
  spec.cleanup = { enabled: false };
  return { kind: csvKind, apiVersion: csvApiVersion, metadata: objectMeta, spec, status: { cleanup: {} } };
}

function isPresent(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function isNonEmptyRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0;
}

function sortedRecord(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, value[key]]));
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
