import { checkStructural, compileSchema, type JSONSchemaProps } from '@olm/structural-schema';
import type { FieldProblem } from './errors.js';
import { isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';
import { allVerbs, compareKubeVersions, type PrinterColumn, type ResourceType, type VersionSchema } from './resource-type.js';
import { stringAt, type ScaleSubresource } from './scale-subresource.js';
import { ageColumn, jsonPathColumn, nameColumn } from './table.js';

/** Reading CustomResourceDefinitions: validation of the CRD itself and the resource type it serves. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JsonObject };
  subresources?: { status?: JsonObject; scale?: CrdScale };
  additionalPrinterColumns?: { name: string; type: string; format?: string; description?: string; priority?: number; jsonPath: string }[];
}

export interface CrdScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdSpec {
  group: string;
  names: CrdNames;
  scope: string;
  versions: CrdVersion[];
}

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function problem(field: string, reason: string, message: string): FieldProblem {
  return { field, reason, message };
}

/** The problems kube-apiserver would report for this CRD (an empty list when it is acceptable). */
export function validateCrd(crd: KubeObject): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const spec = crd['spec'];
  if (!isJsonObject(spec)) return [problem('spec', 'FieldValueRequired', 'Required value')];
  const group = spec['group'];
  const names = isJsonObject(spec['names']) ? spec['names'] : {};
  const plural = names['plural'];
  const kind = names['kind'];
  if (typeof group !== 'string' || group === '') problems.push(problem('spec.group', 'FieldValueRequired', 'Required value'));
  else if (!dnsSubdomain.test(group) || !group.includes('.')) {
    problems.push(problem('spec.group', 'FieldValueInvalid', `Invalid value: "${group}": should be a domain with at least one dot`));
  }
  if (typeof plural !== 'string' || plural === '') problems.push(problem('spec.names.plural', 'FieldValueRequired', 'Required value'));
  else if (!dnsLabel.test(plural)) problems.push(problem('spec.names.plural', 'FieldValueInvalid', `Invalid value: "${plural}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`));
  if (typeof kind !== 'string' || kind === '') problems.push(problem('spec.names.kind', 'FieldValueRequired', 'Required value'));
  if (typeof group === 'string' && typeof plural === 'string' && crd.metadata.name !== `${plural}.${group}`) {
    problems.push(problem('metadata.name', 'FieldValueInvalid', `Invalid value: "${crd.metadata.name ?? ''}": must be spec.names.plural+"."+spec.group`));
  }
  const scope = spec['scope'];
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    problems.push(problem('spec.scope', 'FieldValueNotSupported', `Unsupported value: ${JSON.stringify(scope ?? '')}: supported values: "Cluster", "Namespaced"`));
  }
  const versions = Array.isArray(spec['versions']) ? spec['versions'] : [];
  if (versions.length === 0) problems.push(problem('spec.versions', 'FieldValueInvalid', 'Invalid value: null: must have exactly one version marked as storage version'));
  else if (versions.filter((version) => isJsonObject(version) && version['storage'] === true).length !== 1) {
    problems.push(problem('spec.versions', 'FieldValueInvalid', 'Invalid value: ...: must have exactly one version marked as storage version'));
  }
  versions.forEach((version, index) => {
    const path = `spec.versions[${index}]`;
    if (!isJsonObject(version) || typeof version['name'] !== 'string' || !dnsLabel.test(version['name'])) {
      problems.push(problem(`${path}.name`, 'FieldValueInvalid', `Invalid value: ${JSON.stringify(isJsonObject(version) ? (version['name'] ?? '') : '')}: a DNS-1035 label must consist of lower case alphanumeric characters or '-'`));
      return;
    }
    problems.push(...deprecationWarningProblems(version, `${path}.deprecationWarning`));
    const subresources = version['subresources'];
    if (isJsonObject(subresources) && subresources['scale'] !== undefined && subresources['scale'] !== null) {
      problems.push(...scaleProblems(subresources['scale'], `${path}.subresources.scale`));
    }
    const schema = isJsonObject(version['schema']) ? version['schema']['openAPIV3Schema'] : undefined;
    if (!isJsonObject(schema)) {
      problems.push(problem(`${path}.schema.openAPIV3Schema`, 'FieldValueRequired', 'Required value: schemas are required'));
      return;
    }
    const reasons = checkStructural(schema as JSONSchemaProps, { path: `${path}.schema.openAPIV3Schema` });
    for (const reason of reasons) {
      const [field = '', ...rest] = reason.split(': ');
      const message = rest.join(': ');
      problems.push(problem(field, message.startsWith('Required') ? 'FieldValueRequired' : message.startsWith('Forbidden') ? 'FieldValueForbidden' : 'FieldValueInvalid', message));
    }
    if (reasons.length === 0) {
      try {
        compileSchema(schema as JSONSchemaProps);
      } catch (error) {
        problems.push(problem(`${path}.schema.openAPIV3Schema`, 'FieldValueInvalid', `Invalid value: "": ${error instanceof Error ? error.message : String(error)}`));
      }
    }
  });
  return problems;
}

/** `deprecationWarning` is only for deprecated versions: 1 to 256 printable characters. */
function deprecationWarningProblems(version: JsonObject, path: string): FieldProblem[] {
  const warning = version['deprecationWarning'];
  if (warning === undefined || warning === null) return [];
  const invalid = (reason: string): FieldProblem => problem(path, 'FieldValueInvalid', `Invalid value: ${JSON.stringify(warning)}: ${reason}`);
  if (version['deprecated'] !== true) return [invalid('can only be set for deprecated versions')];
  if (typeof warning !== 'string') return [invalid('must be a string')];
  const problems: FieldProblem[] = [];
  if (Buffer.byteLength(warning) > 256) problems.push(invalid('must be <= 256 characters long'));
  if (warning === '') problems.push(invalid('must not be an empty string'));
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(warning);
  if (control) problems.push(invalid(`must only contain printable UTF-8 characters; control character found at index ${Buffer.byteLength(warning.slice(0, control.index))}`));
  return problems;
}

/**
 * The `Warning` of each deprecated version: its `deprecationWarning`, else kube-apiserver's default
 * `<group>/<version> <Kind> is deprecated`, naming the most preferred newer served version when there is one.
 */
function deprecationWarnings(spec: CrdSpec): Map<string, string> {
  const warnings = new Map<string, string>();
  for (const version of spec.versions) {
    if (version.deprecated !== true) continue;
    if (typeof version.deprecationWarning === 'string') {
      warnings.set(version.name, version.deprecationWarning);
      continue;
    }
    const kind = spec.names.kind;
    const newer = spec.versions
      .filter((other) => other.served && other.deprecated !== true && compareKubeVersions(other.name, version.name) < 0)
      .map((other) => other.name)
      .sort(compareKubeVersions);
    const warning = `${spec.group}/${version.name} ${kind} is deprecated`;
    warnings.set(version.name, newer[0] === undefined ? warning : `${warning}; use ${spec.group}/${newer[0]} ${kind}`);
  }
  return warnings;
}

/** A dotted path without array notation (`.spec.replicas`), as scale paths must be. */
const simpleJsonPath = /^(\.[A-Za-z0-9_$-]+)+$/;

function scaleProblems(scale: unknown, path: string): FieldProblem[] {
  if (!isJsonObject(scale)) return [problem(path, 'FieldValueInvalid', 'Invalid value: must be an object')];
  const problems: FieldProblem[] = [];
  const check = (field: string, required: boolean, prefixes: readonly string[], under: string): void => {
    const value = scale[field];
    if (value === undefined || value === null || value === '') {
      if (required) problems.push(problem(`${path}.${field}`, 'FieldValueRequired', 'Required value'));
      return;
    }
    if (typeof value !== 'string' || !simpleJsonPath.test(value)) {
      problems.push(problem(`${path}.${field}`, 'FieldValueInvalid', `Invalid value: ${JSON.stringify(value)}: must be a simple json path starting with . and without array notation`));
    } else if (!prefixes.some((prefix) => value.startsWith(prefix))) {
      problems.push(problem(`${path}.${field}`, 'FieldValueInvalid', `Invalid value: ${JSON.stringify(value)}: should be a json path under ${under}`));
    }
  };
  check('specReplicasPath', true, ['.spec.'], '.spec');
  check('statusReplicasPath', true, ['.status.'], '.status');
  check('labelSelectorPath', false, ['.spec.', '.status.'], 'either .spec or .status');
  return problems;
}

/** The scale subresource a CRD serves: the storage version's, else the first version declaring one. */
function crdScale(spec: CrdSpec, storage: CrdVersion | undefined): ScaleSubresource | undefined {
  const scale = storage?.subresources?.scale ?? spec.versions.find((version) => version.subresources?.scale)?.subresources?.scale;
  if (!scale) return undefined;
  const labelSelectorPath = scale.labelSelectorPath;
  return {
    specReplicasPath: scale.specReplicasPath,
    statusReplicasPath: scale.statusReplicasPath,
    selector: (object) => (labelSelectorPath ? stringAt(object, labelSelectorPath) : ''),
  };
}

export function crdSpec(crd: KubeObject): CrdSpec {
  return crd['spec'] as unknown as CrdSpec;
}

function schemaNode(schema: unknown, path: readonly string[]): JsonObject | undefined {
  let node: unknown = schema;
  for (const name of path) {
    if (!isJsonObject(node)) return undefined;
    if (name === '[]') node = node['items'];
    else {
      const properties = node['properties'];
      const additional = node['additionalProperties'];
      node = isJsonObject(properties) && isJsonObject(properties[name]) ? properties[name] : isJsonObject(additional) ? additional : undefined;
    }
  }
  return isJsonObject(node) ? node : undefined;
}

/** The resource type a CRD serves (its served versions, columns, compiled schemas). */
export function resourceTypeFromCrd(crd: KubeObject): ResourceType {
  const spec = crdSpec(crd);
  const served = spec.versions.filter((version) => version.served);
  const storage = spec.versions.find((version) => version.storage) ?? spec.versions[0];
  const schemas = new Map<string, VersionSchema | undefined>();
  const columns = new Map<string, PrinterColumn[]>();
  for (const version of spec.versions) {
    const raw = version.schema?.openAPIV3Schema;
    if (raw) {
      const compiled = compileSchema(raw as JSONSchemaProps);
      schemas.set(version.name, {
        raw,
        validate: (object) => compiled.validate(object),
        prune: (object) => compiled.prune(object) as { object: KubeObject; unknownFields: string[] },
        applyDefaults: (object) => compiled.applyDefaults(object) as KubeObject,
      });
    }
    const printer = version.additionalPrinterColumns ?? [];
    columns.set(version.name, printer.length === 0 ? [nameColumn, ageColumn] : [nameColumn, ...printer.map(jsonPathColumn)]);
  }
  const storageSchema = storage?.schema?.openAPIV3Schema;
  const statusSubresource = spec.versions.some((version) => version.subresources?.status !== undefined);
  const scale = crdScale(spec, storage);
  return {
    group: spec.group,
    versions: served.map((version) => version.name).sort(compareKubeVersions),
    storageVersion: storage?.name ?? 'v1',
    plural: spec.names.plural,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    kind: spec.names.kind,
    listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    namespaced: spec.scope === 'Namespaced',
    shortNames: spec.names.shortNames ?? [],
    categories: spec.names.categories ?? [],
    verbs: allVerbs,
    statusSubresource,
    ...(scale ? { scale } : {}),
    tracksGeneration: true,
    strategicMerge: false,
    requiresResourceVersionOnUpdate: true,
    columns: (version) => columns.get(version) ?? [nameColumn, ageColumn],
    schemas,
    crdName: crd.metadata.name ?? '',
    deprecationWarnings: deprecationWarnings(spec),
    mapFields: (path) => {
      const node = schemaNode(storageSchema, path);
      return node !== undefined && isJsonObject(node['additionalProperties']) && !isJsonObject(node['properties']);
    },
    associativeList: (path) => {
      const node = schemaNode(storageSchema, path);
      const listType = node?.['x-kubernetes-list-type'];
      if (listType === 'set') return { type: 'set' };
      const keys = node?.['x-kubernetes-list-map-keys'];
      if (listType !== 'map' || !Array.isArray(keys)) return undefined;
      // A key field left out of an item takes its schema default (the CRD must give one or require the field).
      const items = node?.['items'];
      const properties = isJsonObject(items) && isJsonObject(items['properties']) ? items['properties'] : {};
      const defaults: Record<string, unknown> = {};
      for (const key of keys as string[]) {
        const property = properties[key];
        if (isJsonObject(property) && property['default'] !== undefined) defaults[key] = property['default'];
      }
      return { type: 'map', keys: keys as string[], defaults };
    },
  };
}
