import type { GroupVersionKind, PropertyType } from '@olm/core';
import { parseVersionTolerant } from '@olm/semver-range';
import { decodeGoBase64 } from './go-base64.js';
import { decodeGoJson, goBool, goBytes, goInt, goRaw, goSlice, goString, goStringMap, goStruct } from './go-json-decode.js';
import type { GoShape } from './go-json-decode.js';
import { loadYamlDocument } from './parse-file.js';

/** `olm.package`: the bundle's package and version (and optional release). */
export interface PackageProperty {
  readonly packageName: string;
  readonly version: string;
  readonly release?: string;
}

/** `olm.package.required`: a dependency on a package version range (legacy form). */
export interface PackageRequiredProperty {
  readonly packageName: string;
  readonly versionRange: string;
}

/** `olm.label`: a label other bundles can depend on (legacy form). */
export interface LabelProperty {
  readonly label: string;
}

/** `olm.channel`: internal use only upstream. */
export interface ChannelProperty {
  readonly channelName: string;
  readonly priority: number;
}

/** `olm.bundle.object`: one manifest of the bundle, inline (`data`, base64) or by file reference (`ref`). */
export type BundleObjectProperty =
  | { readonly kind: 'data'; readonly manifest: unknown; readonly json: string }
  | { readonly kind: 'ref'; readonly ref: string };

/** `olm.csv.metadata`: the parts of a CSV OLM needs without the install strategy. */
export interface CsvMetadataProperty {
  readonly annotations?: Readonly<Record<string, string>>;
  readonly apiServiceDefinitions?: Readonly<Record<string, unknown>>;
  readonly crdDescriptions?: Readonly<Record<string, unknown>>;
  readonly description?: string;
  readonly displayName?: string;
  readonly installModes?: readonly { readonly type: string; readonly supported: boolean }[];
  readonly keywords?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly links?: readonly { readonly name: string; readonly url: string }[];
  readonly maintainers?: readonly { readonly name: string; readonly email: string }[];
  readonly maturity?: string;
  readonly minKubeVersion?: string;
  readonly nativeAPIs?: readonly GroupVersionKind[];
  readonly provider?: { readonly name: string; readonly url: string };
}

/** Thrown by a property type's `parse`; the message is Go's text for the same input. */
export class PropertyValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PropertyValueError';
  }
}

function missingValue(value: unknown): void {
  // Upstream stores the value as raw JSON; a property without `value` has empty raw text.
  if (value === undefined) throw new PropertyValueError('unexpected end of JSON input');
}

function goTyped<T>(goType: string, fields: Record<string, GoShape>) {
  const shape = goStruct(goType, fields);
  return (value: unknown): T => {
    missingValue(value);
    const { value: decoded, error } = decodeGoJson<T>(value, shape);
    if (error !== undefined) throw new PropertyValueError(error);
    if (decoded === undefined) throw new PropertyValueError(`json: cannot unmarshal null into Go value of type ${goType}`);
    return decoded;
  };
}

const parsePackage = goTyped<{ packageName: string; version: string; release: string }>('property.Package', {
  packageName: goString,
  version: goString,
  release: goString,
});

export const packagePropertyType: PropertyType<PackageProperty> = {
  type: 'olm.package',
  parse(value) {
    const { packageName, version, release } = parsePackage(value);
    return release === '' ? { packageName, version } : { packageName, version, release };
  },
};

const gvkFields = { group: goString, kind: goString, version: goString };

export const gvkPropertyType: PropertyType<GroupVersionKind> = {
  type: 'olm.gvk',
  parse: goTyped<GroupVersionKind>('property.GVK', gvkFields),
};

export const gvkRequiredPropertyType: PropertyType<GroupVersionKind> = {
  type: 'olm.gvk.required',
  parse: goTyped<GroupVersionKind>('property.GVKRequired', gvkFields),
};

export const packageRequiredPropertyType: PropertyType<PackageRequiredProperty> = {
  type: 'olm.package.required',
  parse: goTyped<PackageRequiredProperty>('property.PackageRequired', { packageName: goString, versionRange: goString }),
};

export const channelPropertyType: PropertyType<ChannelProperty> = {
  type: 'olm.channel',
  parse: goTyped<ChannelProperty>('property.Channel', { channelName: goString, priority: goInt }),
};

export const labelPropertyType: PropertyType<LabelProperty> = {
  type: 'olm.label',
  parse: goTyped<LabelProperty>('property.Label', { label: goString }),
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `olm.constraint` is compiled by the resolver; here it only has to be a JSON object. */
export const constraintPropertyType: PropertyType<Readonly<Record<string, unknown>>> = {
  type: 'olm.constraint',
  parse(value) {
    missingValue(value);
    if (!isObject(value)) throw new PropertyValueError('olm.constraint value must be a JSON object');
    return value;
  },
};

/** `olm.deprecated`: a legacy marker whose value is `{}`. */
export const deprecatedPropertyType: PropertyType<Readonly<Record<string, unknown>>> = {
  type: 'olm.deprecated',
  parse(value) {
    missingValue(value);
    if (!isObject(value)) throw new PropertyValueError('olm.deprecated value must be a JSON object');
    return value;
  },
};

/** `olm.maxOpenShiftVersion`: a JSON string OLM on OpenShift parses tolerantly (`"4.19"`). */
export const maxOpenShiftVersionPropertyType: PropertyType<string> = {
  type: 'olm.maxOpenShiftVersion',
  parse(value) {
    missingValue(value);
    if (typeof value !== 'string') {
      throw new PropertyValueError(`json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value} into Go value of type string`);
    }
    parseVersionTolerant(value);
    return value;
  },
};

const bundleObjectShape = goStruct('property.fileJSON', { ref: goString, data: goBytes });

/** A decoded `olm.bundle.object` whose text is neither JSON nor YAML. */
export class ManifestConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestConversionError';
  }
}

/** Manifest text (JSON or YAML: YAML is a superset of JSON) to a value, as upstream's YAML-to-JSON step. */
function parseManifest(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    try {
      return loadYamlDocument(text);
    } catch (error) {
      const reason = (error as { reason?: unknown }).reason;
      const message = typeof reason === 'string' ? reason : error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      throw new ManifestConversionError(`yaml: ${message}`);
    }
  }
}

export const bundleObjectPropertyType: PropertyType<BundleObjectProperty> = {
  type: 'olm.bundle.object',
  parse(value) {
    missingValue(value);
    const { value: decoded, error } = decodeGoJson<{ ref: string; data: string }>(value, bundleObjectShape);
    if (error !== undefined) throw new PropertyValueError(error);
    if (decoded === undefined) return { kind: 'data', manifest: {}, json: 'null' };
    if (decoded.ref !== '' && decoded.data !== '') throw new PropertyValueError("fields 'ref' and 'data' are mutually exclusive");
    if (decoded.ref !== '') return { kind: 'ref', ref: decoded.ref };
    let text: string;
    try {
      text = decodeGoBase64(decoded.data).toString('utf8');
    } catch (error) {
      throw new PropertyValueError(error instanceof Error ? error.message : String(error));
    }
    const manifest = parseManifest(text);
    return { kind: 'data', manifest, json: JSON.stringify(manifest ?? null) };
  },
};

const appLink = goStruct('v1alpha1.AppLink', { name: goString, url: goString });
const csvMetadataShape = goStruct('property.CSVMetadata', {
  annotations: goStringMap,
  apiServiceDefinitions: goStruct('v1alpha1.APIServiceDefinitions', { owned: goSlice(goRaw), required: goSlice(goRaw) }),
  crdDescriptions: goStruct('v1alpha1.CustomResourceDefinitions', { owned: goSlice(goRaw), required: goSlice(goRaw) }),
  description: goString,
  displayName: goString,
  installModes: goSlice(goStruct('v1alpha1.InstallMode', { type: goString, supported: goBool })),
  keywords: goSlice(goString),
  labels: goStringMap,
  links: goSlice(appLink),
  maintainers: goSlice(goStruct('v1alpha1.Maintainer', { name: goString, email: goString })),
  maturity: goString,
  minKubeVersion: goString,
  nativeAPIs: goSlice(goStruct('v1.GroupVersionKind', { group: goString, version: goString, kind: goString })),
  provider: appLink,
});

export const csvMetadataPropertyType: PropertyType<CsvMetadataProperty> = {
  type: 'olm.csv.metadata',
  parse(value) {
    missingValue(value);
    const { error } = decodeGoJson(value, csvMetadataShape);
    if (error !== undefined) throw new PropertyValueError(error);
    if (!isObject(value)) throw new PropertyValueError('json: cannot unmarshal null into Go value of type property.CSVMetadata');
    return value as CsvMetadataProperty;
  },
};

/** The built-in property types, in one list (contributed to the kernel by `registryPlugin`). */
export const builtInPropertyTypes: readonly PropertyType[] = [
  packagePropertyType,
  gvkPropertyType,
  gvkRequiredPropertyType,
  packageRequiredPropertyType,
  labelPropertyType,
  constraintPropertyType,
  bundleObjectPropertyType,
  csvMetadataPropertyType,
  deprecatedPropertyType,
  maxOpenShiftVersionPropertyType,
  channelPropertyType,
];

/**
 * The property types `opm validate` itself parses strictly. A bad value of one of these makes
 * the catalog invalid; a bad value of another built-in type is reported as a warning (opm
 * accepts any JSON there, and OLM checks it only when it resolves).
 */
export const opmCheckedPropertyTypes: ReadonlySet<string> = new Set([
  'olm.package',
  'olm.package.required',
  'olm.gvk',
  'olm.gvk.required',
  'olm.bundle.object',
  'olm.channel',
  'olm.csv.metadata',
]);

/** Builds the type map the loader uses: built-ins, overridden or extended by `extra`. */
export function propertyTypeMap(extra?: ReadonlyMap<string, PropertyType> | Iterable<PropertyType>): Map<string, PropertyType> {
  const map = new Map<string, PropertyType>(builtInPropertyTypes.map((propertyType) => [propertyType.type, propertyType]));
  if (extra === undefined) return map;
  const entries: Iterable<PropertyType> = extra instanceof Map ? extra.values() : (extra as Iterable<PropertyType>);
  for (const propertyType of entries) map.set(propertyType.type, propertyType);
  return map;
}
