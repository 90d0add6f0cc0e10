import { childPath, formatValue, indexPath, isObject } from './field-path.js';
import type { FieldError, JSONSchemaProps } from './json-schema-props.js';

/**
 * Checks `x-kubernetes-list-type: set` (no duplicate items) and `map` (no two items with the same values
 * for `x-kubernetes-list-map-keys`), as the API server does after schema validation. The second
 * occurrence is reported (`spec.items[2]: Duplicate value: …`). Never throws.
 */
export function validateListTypes(schema: JSONSchemaProps, object: unknown): FieldError[] {
  const errors: FieldError[] = [];
  walk(schema, object, '', errors);
  return errors;
}

function walk(schema: JSONSchemaProps | undefined, value: unknown, path: string, errors: FieldError[]): void {
  if (!isObject(schema)) return;
  if (Array.isArray(value)) {
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set') checkSet(value, path, errors);
    else if (listType === 'map') checkMap(value, schema['x-kubernetes-list-map-keys'], path, errors);
    const items = schema.items;
    if (isObject(items)) value.forEach((item, index) => walk(items, item, indexPath(path, index), errors));
    return;
  }
  if (!isObject(value)) return;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  for (const [key, item] of Object.entries(value)) {
    const sub = Object.hasOwn(properties, key) ? properties[key] : additional;
    if (sub !== undefined) walk(sub, item, childPath(path, key), errors);
  }
}

/** A canonical JSON key: equal JSON values give equal keys whatever the order of object fields. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function checkSet(list: unknown[], path: string, errors: FieldError[]): void {
  const seen = new Set<string>();
  list.forEach((item, index) => {
    const key = canonical(item);
    if (seen.has(key)) errors.push({ field: indexPath(path, index), type: 'FieldValueDuplicate', message: `Duplicate value: ${formatValue(item)}`, value: item });
    seen.add(key);
  });
}

function checkMap(list: unknown[], keys: unknown, path: string, errors: FieldError[]): void {
  if (!Array.isArray(keys) || keys.length === 0) return;
  const seen = new Set<string>();
  list.forEach((item, index) => {
    if (!isObject(item)) return;
    const identity: Record<string, unknown> = {};
    for (const key of keys) if (typeof key === 'string' && Object.hasOwn(item, key)) identity[key] = item[key];
    const id = canonical(identity);
    if (seen.has(id)) errors.push({ field: indexPath(path, index), type: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(identity)}`, value: identity });
    seen.add(id);
  });
}
