import type { ManifestObject } from '../bundle-content.js';
import { isEmpty, isObject } from '../json-shapes.js';

/** `{owned?, required?}` as Go writes the CSV's definitions struct: always there, empty lists left out. */
function definitions(value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const side of ['owned', 'required']) if (isObject(value) && !isEmpty(value[side])) out[side] = value[side];
  return out;
}

/**
 * The `olm.csv.metadata` value of a CSV, shaped as upstream's `property.CSVMetadata` marshals: the
 * definitions and the provider always present (Go structs), other fields only when set. Nested values
 * are copied as written (upstream's typed structs would drop fields they do not know).
 */
export function csvMetadataOf(csv: ManifestObject): Record<string, unknown> {
  const metadata = isObject(csv.metadata) ? csv.metadata : {};
  const spec = isObject(csv.spec) ? csv.spec : {};
  const provider = isObject(spec.provider) ? spec.provider : {};
  const value: Record<string, unknown> = {
    apiServiceDefinitions: definitions(spec.apiservicedefinitions),
    crdDescriptions: definitions(spec.customresourcedefinitions),
    provider: Object.fromEntries(['name', 'url'].filter((key) => !isEmpty(provider[key])).map((key) => [key, provider[key]])),
  };
  const optional: Record<string, unknown> = {
    annotations: metadata.annotations,
    description: spec.description,
    displayName: spec.displayName,
    installModes: spec.installModes,
    keywords: spec.keywords,
    labels: metadata.labels,
    links: spec.links,
    maintainers: spec.maintainers,
    maturity: spec.maturity,
    minKubeVersion: spec.minKubeVersion,
    nativeAPIs: spec.nativeAPIs,
  };
  for (const [key, field] of Object.entries(optional)) if (!isEmpty(field)) value[key] = field;
  return value;
}
