import { compileRe2Pattern } from '@olm/untrusted-input';
import { compileNode } from './compile-schema.js';
import { formatValue, isObject } from './field-path.js';
import type { JSONSchemaProps } from './json-schema-props.js';

/** Options of {@link checkStructural}. */
export interface CheckStructuralOptions {
  /**
   * Field path of the schema inside its CRD, prefixed to every reason.
   * Defaults to `spec.validation.openAPIV3Schema`; for a v1 CRD version pass e.g. `spec.versions[0].schema.openAPIV3Schema`.
   */
  path?: string;
}

const openAPIV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'] as const;
const unsupportedKeywords = ['id', '$ref', 'additionalItems', 'patternProperties', 'definitions', 'dependencies'] as const;
const junctors = ['allOf', 'anyOf', 'oneOf'] as const;

type Level = 'root' | 'item' | 'field';

/** Kubernetes `field.Error` renderings, so reasons read exactly like the API server's. */
const reason = {
  required: (path: string, detail: string) => `${path}: Required value${detail ? `: ${detail}` : ''}`,
  invalid: (path: string, value: unknown, detail: string) => `${path}: Invalid value: ${formatValue(value)}: ${detail}`,
  forbidden: (path: string, detail: string) => `${path}: Forbidden: ${detail}`,
  notSupported: (path: string, value: unknown, supported: readonly string[]) =>
    `${path}: Unsupported value: ${formatValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
};

const prop = (path: string, name: string) => `${path}.properties[${name}]`;
const child = (path: string, name: string) => `${path}.${name}`;

/**
 * Lists the reasons why `schema` is not a structural schema that Kubernetes would accept in a
 * CustomResourceDefinition (apiextensions-apiserver `ValidateStructural` plus the CRD schema checks that
 * matter for pruning and defaulting), sorted like the API server sorts them. Returns `[]` for a good schema.
 * Never throws, whatever the input.
 */
export function checkStructural(schema: JSONSchemaProps, options: CheckStructuralOptions = {}): string[] {
  const root = options.path ?? 'spec.validation.openAPIV3Schema';
  const reasons: string[] = [];
  if (!isObject(schema)) {
    reasons.push(reason.invalid(root, schema, 'must be an object (a JSONSchemaProps)'));
    return reasons;
  }
  checkNode(schema, 'root', root, reasons);
  checkCompleteness(schema, root, reasons);
  return [...new Set(reasons)].sort();
}

function typeOf(node: Record<string, unknown>): string {
  return typeof node.type === 'string' ? node.type : '';
}

function schemaChildren(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

function checkNode(node: unknown, level: Level, path: string, reasons: string[]): void {
  if (!isObject(node)) {
    reasons.push(reason.invalid(path, node, 'must be a schema object'));
    return;
  }
  checkKeywords(node, path, reasons);
  if (node.default !== undefined && level !== 'root') checkDefault(node, path, reasons);
  const type = typeOf(node);
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  const embedded = node['x-kubernetes-embedded-resource'] === true;
  const properties = schemaChildren(node.properties);
  const propertyNames = Object.keys(properties);

  if (node.items !== undefined && !Array.isArray(node.items)) checkNode(node.items, 'item', child(path, 'items'), reasons);
  else if (type === 'array' && node.items === undefined) reasons.push(reason.required(child(path, 'items'), 'must be specified'));
  for (const name of propertyNames) checkNode(properties[name], 'field', prop(path, name), reasons);

  if (node.additionalProperties !== undefined) {
    const additional = node.additionalProperties;
    if (level === 'root') reasons.push(reason.forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (propertyNames.length > 0 && additional !== true) {
      reasons.push(reason.forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (embedded) reasons.push(reason.forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
    if (typeof additional !== 'boolean') checkNode(additional, 'field', child(path, 'additionalProperties'), reasons);
  }

  if (intOrString && preserve) {
    reasons.push(reason.invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (intOrString && embedded) {
    reasons.push(reason.invalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }

  checkValueValidation(node, isIntOrStringAnyOf(node.anyOf), isIntOrStringAllOf(node.allOf), path, reasons);

  if (embedded && type !== 'object') {
    if (type === '') reasons.push(reason.required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else reasons.push(reason.invalid(child(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const where = { root: 'at the root', item: 'for specified array items', field: 'for specified object fields' }[level];
    reasons.push(reason.required(child(path, 'type'), `must not be empty ${where}`));
  }
  if (level === 'root' && type !== '' && type !== 'object') reasons.push(reason.invalid(child(path, 'type'), type, 'must be object at the root'));

  const isResource = level === 'root' || embedded;
  if (isResource) {
    for (const name of ['kind', 'apiVersion']) {
      const field = properties[name];
      if (field !== undefined && isObject(field) && typeOf(field) !== 'string') {
        reasons.push(reason.invalid(child(prop(path, name), 'type'), typeOf(field), 'must be string'));
      }
      if (level === 'root' && isObject(field) && field.default !== undefined) {
        reasons.push(reason.forbidden(child(prop(path, name), 'default'), `must not be set in top-level ${name}`));
      }
    }
  }
  const metadata = properties.metadata;
  if (metadata !== undefined && isObject(metadata)) checkMetadata(metadata, level, isResource, prop(path, 'metadata'), reasons);

  if (embedded && !preserve && propertyNames.length === 0) {
    reasons.push(
      reason.required(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'),
    );
  }
}

/**
 * A default must be valid for its own schema and must not carry fields that pruning would drop
 * (Kubernetes rejects such CRDs rather than store objects it cannot validate).
 */
function checkDefault(node: Record<string, unknown>, path: string, reasons: string[]): void {
  const defaultPath = child(path, 'default');
  let compiled: ReturnType<typeof compileNode>;
  try {
    compiled = compileNode(node as JSONSchemaProps, false);
  } catch {
    return; // the schema itself is broken; its own reasons say why
  }
  const value = node.default;
  if (value === null && node.nullable === true) return;
  const { unknownFields } = compiled.prune(value);
  if (unknownFields.length > 0) {
    reasons.push(reason.invalid(defaultPath, value, `must not have unknown fields: ${unknownFields.join(', ')}`));
  }
  for (const error of compiled.validate(compiled.applyDefaults(value))) {
    const field = error.field === '' ? defaultPath : `${defaultPath}.${error.field}`;
    const message = error.field === '' ? error.message.replace(': body ', `: ${field} in body `) : error.message.replace(`${error.field} in body`, `${field} in body`);
    reasons.push(`${field}: ${message}`);
  }
}

/** Keyword-level checks shared by the structural part and value validations. */
function checkKeywords(node: Record<string, unknown>, path: string, reasons: string[]): void {
  for (const keyword of unsupportedKeywords) {
    if (node[keyword] !== undefined) reasons.push(reason.forbidden(child(path, keyword), `${keyword} is not supported`));
  }
  if (node.type !== undefined) {
    if (node.type === 'null') reasons.push(reason.forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
    else if (typeof node.type !== 'string' || !(openAPIV3Types as readonly string[]).includes(node.type)) {
      reasons.push(reason.notSupported(child(path, 'type'), node.type, openAPIV3Types));
    }
  }
  if (Array.isArray(node.items)) reasons.push(reason.forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (node.uniqueItems === true) {
    reasons.push(reason.forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }
  if (node['x-kubernetes-preserve-unknown-fields'] === false) {
    reasons.push(reason.invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  if (typeof node.pattern === 'string') {
    try {
      compileRe2Pattern(node.pattern);
    } catch (error) {
      reasons.push(reason.invalid(child(path, 'pattern'), node.pattern, `must be a valid regular expression, but isn't: ${(error as Error).message}`));
    }
  }
  checkListAndMapTypes(node, path, reasons);
}

function checkListAndMapTypes(node: Record<string, unknown>, path: string, reasons: string[]): void {
  const type = typeOf(node);
  const mapType = node['x-kubernetes-map-type'];
  const listType = node['x-kubernetes-list-type'];
  const mapKeys = node['x-kubernetes-list-map-keys'];
  if (mapType !== undefined) {
    if (type !== 'object') {
      if (type === '') reasons.push(reason.required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
      else reasons.push(reason.invalid(child(path, 'type'), type, 'must be object if x-kubernetes-map-type is specified'));
    }
    if (mapType !== 'atomic' && mapType !== 'granular') {
      reasons.push(reason.notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
    }
  }
  if (listType !== undefined) {
    if (type !== 'array') {
      if (type === '') reasons.push(reason.required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
      else reasons.push(reason.invalid(child(path, 'type'), type, 'must be array if x-kubernetes-list-type is specified'));
    }
    if (listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
      reasons.push(reason.notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
    }
  }
  const keys = Array.isArray(mapKeys) ? mapKeys : [];
  if (keys.length > 0 && listType !== 'map') {
    if (listType === undefined) reasons.push(reason.required(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else reasons.push(reason.invalid(child(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (keys.length === 0) reasons.push(reason.required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    const items = node.items;
    if (items === undefined) reasons.push(reason.required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    else if (isObject(items)) {
      if (typeOf(items) !== 'object') {
        reasons.push(reason.invalid(child(path, 'items.type'), typeOf(items), "must be object if parent array's x-kubernetes-list-type is map"));
      } else {
        const itemProperties = schemaChildren(items.properties);
        const seen = new Set<unknown>();
        for (const key of keys) {
          const keySchema = typeof key === 'string' ? itemProperties[key] : undefined;
          if (keySchema === undefined) {
            reasons.push(reason.invalid(child(path, 'x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'));
          } else if (isObject(keySchema) && (typeOf(keySchema) === 'array' || typeOf(keySchema) === 'object')) {
            reasons.push(
              reason.invalid(child(prop(child(path, 'items'), String(key)), 'type'), typeOf(keySchema), "must be a scalar type if parent array's x-kubernetes-list-type is map"),
            );
          }
          if (seen.has(key)) reasons.push(reason.invalid(child(path, 'x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'));
          seen.add(key);
        }
      }
    }
  }
}

function checkMetadata(metadata: Record<string, unknown>, level: Level, isResource: boolean, path: string, reasons: string[]): void {
  if (isResource && typeOf(metadata) !== 'object') reasons.push(reason.invalid(child(path, 'type'), typeOf(metadata), 'must be object'));
  if (level !== 'root') return;
  // Kubernetes validates ObjectMeta itself; a CRD schema may only restrict name and generateName.
  const allowed = new Set(['type', 'description', 'title', 'properties']);
  const names = Object.keys(schemaChildren(metadata.properties));
  const restrictsOthers = names.some((name) => name !== 'name' && name !== 'generateName');
  if (restrictsOthers || Object.keys(metadata).some((key) => !allowed.has(key))) {
    reasons.push(reason.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
}

function isTypeOnly(value: unknown, type: string): boolean {
  return isObject(value) && Object.keys(value).length === 1 && value.type === type;
}

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  return Array.isArray(anyOf) && anyOf.length === 2 && isTypeOnly(anyOf[0], 'integer') && isTypeOnly(anyOf[1], 'string');
}

function isIntOrStringAllOf(allOf: unknown): boolean {
  return Array.isArray(allOf) && allOf.length >= 1 && isObject(allOf[0]) && isIntOrStringAnyOf(allOf[0].anyOf);
}

/** allOf/anyOf/oneOf/not may only hold value validations, never structure (type, defaults, extensions …). */
function checkValueValidation(node: Record<string, unknown>, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string, reasons: string[]): void {
  for (const junctor of junctors) {
    const list = node[junctor];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      reasons.push(reason.invalid(child(path, junctor), list, 'must be a list of schema objects'));
      continue;
    }
    if (junctor === 'anyOf' && skipAnyOf) continue;
    list.forEach((nested, index) => {
      const skip = junctor === 'allOf' && index === 0 && skipFirstAllOfAnyOf;
      checkNested(nested, skip, `${path}.${junctor}[${index}]`, reasons);
    });
  }
  if (node.not !== undefined) checkNested(node.not, false, child(path, 'not'), reasons);
}

const forbiddenInNested: ReadonlyArray<[string, (value: unknown) => boolean, string]> = [
  ['type', (v) => typeof v === 'string' && v !== '', 'must be empty to be structural'],
  ['additionalProperties', (v) => v !== undefined, 'must be undefined to be structural'],
  ['default', (v) => v !== undefined, 'must be undefined to be structural'],
  ['title', (v) => typeof v === 'string' && v !== '', 'must be empty to be structural'],
  ['description', (v) => typeof v === 'string' && v !== '', 'must be empty to be structural'],
  ['nullable', (v) => v === true, 'must be false to be structural'],
  ['externalDocs', (v) => v !== undefined, 'must be undefined to be structural'],
  ['x-kubernetes-preserve-unknown-fields', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-int-or-string', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', (v) => Array.isArray(v) && v.length > 0, 'must be empty to be structural'],
  ['x-kubernetes-list-type', (v) => v !== undefined, 'must be undefined to be structural'],
  ['x-kubernetes-map-type', (v) => v !== undefined, 'must be undefined to be structural'],
  ['x-kubernetes-validations', (v) => Array.isArray(v) && v.length > 0, 'must be empty to be structural'],
];

function checkNested(nested: unknown, skipAnyOf: boolean, path: string, reasons: string[]): void {
  if (!isObject(nested)) {
    reasons.push(reason.invalid(path, nested, 'must be a schema object'));
    return;
  }
  checkKeywords(nested, path, reasons);
  checkValueValidation(nested, skipAnyOf, false, path, reasons);
  if (isObject(nested.items)) checkNested(nested.items, false, child(path, 'items'), reasons);
  const properties = schemaChildren(nested.properties);
  for (const [name, sub] of Object.entries(properties)) checkNested(sub, false, prop(path, name), reasons);
  if (isObject(nested.additionalProperties)) checkNested(nested.additionalProperties, false, child(path, 'additionalProperties'), reasons);
  for (const [keyword, isSet, detail] of forbiddenInNested) {
    if (isSet(nested[keyword])) reasons.push(reason.forbidden(child(path, keyword), detail));
  }
  if (properties.metadata !== undefined) reasons.push(reason.forbidden(prop(path, 'metadata'), 'must not be specified in a nested context'));
}

/** Every field or item a value validation talks about must also be specified in the structural part. */
function checkCompleteness(node: unknown, path: string, reasons: string[]): void {
  if (!isObject(node)) return;
  forEachNested(node, path, (nested, nestedPath) => checkNestedCompleteness(nested, node, path, nestedPath, reasons));
  for (const [name, sub] of Object.entries(schemaChildren(node.properties))) checkCompleteness(sub, prop(path, name), reasons);
  if (isObject(node.items)) checkCompleteness(node.items, child(path, 'items'), reasons);
  if (isObject(node.additionalProperties)) checkCompleteness(node.additionalProperties, child(path, 'additionalProperties'), reasons);
}

function forEachNested(node: Record<string, unknown>, path: string, visit: (nested: Record<string, unknown>, nestedPath: string) => void): void {
  for (const junctor of junctors) {
    const list = node[junctor];
    if (!Array.isArray(list)) continue;
    list.forEach((nested, index) => {
      if (isObject(nested)) visit(nested, `${path}.${junctor}[${index}]`);
    });
  }
  if (isObject(node.not)) visit(node.not, child(path, 'not'));
}

function checkNestedCompleteness(
  nested: Record<string, unknown>,
  structural: unknown,
  structuralPath: string,
  nestedPath: string,
  reasons: string[],
): void {
  if (!isObject(structural)) {
    reasons.push(reason.required(structuralPath, `because it is defined in ${nestedPath}`));
    return;
  }
  const structuralProperties = schemaChildren(structural.properties);
  for (const [name, sub] of Object.entries(schemaChildren(nested.properties))) {
    if (!isObject(sub)) continue;
    checkNestedCompleteness(sub, structuralProperties[name], prop(structuralPath, name), prop(nestedPath, name), reasons);
  }
  if (isObject(nested.items)) checkNestedCompleteness(nested.items, structural.items, child(structuralPath, 'items'), child(nestedPath, 'items'), reasons);
  forEachNested(nested, nestedPath, (inner, innerPath) => checkNestedCompleteness(inner, structural, structuralPath, innerPath, reasons));
}
