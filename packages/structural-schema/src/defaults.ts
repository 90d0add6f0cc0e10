import { isObject } from './field-path.js';
import type { JSONSchemaProps } from './json-schema-props.js';
import { cloneJson } from './prune.js';

/**
 * Applies `default`s the way the API server does for custom resources
 * (apiextensions-apiserver `structuraldefaulting`): a property that is absent gets a copy of its
 * default; a `null` in a field that is not `nullable` gets the default, or is dropped when there is
 * none; present objects, maps and arrays are walked into (defaulted values too). Root `apiVersion`,
 * `kind` and `metadata` are never touched. Does not modify `object`; returns a defaulted copy.
 */
export function defaultObject(schema: JSONSchemaProps, object: unknown): unknown {
  const copy = cloneJson(object);
  defaultNode(copy, schema, true);
  return copy;
}

const rootMetaFields = new Set(['apiVersion', 'kind', 'metadata']);

function defaultNode(value: unknown, schema: JSONSchemaProps | undefined, isRoot: boolean): void {
  if (!isObject(schema)) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isObject(items)) return;
    value.forEach((item, index) => {
      if (item === null && items.nullable !== true && items.default !== undefined) value[index] = cloneJson(items.default);
      defaultNode(value[index], items, false);
    });
    return;
  }
  if (!isObject(value)) return;
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [key, sub] of Object.entries(properties)) {
    if (!isObject(sub) || (isRoot && rootMetaFields.has(key))) continue;
    fillField(value, key, sub);
  }
  const additional = schema.additionalProperties;
  if (isObject(additional)) {
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(properties, key)) continue;
      fillField(value, key, additional);
    }
  }
}

function fillField(object: Record<string, unknown>, key: string, schema: JSONSchemaProps): void {
  const present = Object.hasOwn(object, key);
  const current = object[key];
  if (!present || (current === null && schema.nullable !== true)) {
    if (schema.default !== undefined) object[key] = cloneJson(schema.default);
    else if (present) delete object[key];
  }
  if (Object.hasOwn(object, key)) defaultNode(object[key], schema, false);
}
