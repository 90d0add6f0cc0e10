import { childPath, indexPath, isObject } from './field-path.js';
import type { JSONSchemaProps } from './json-schema-props.js';

/** Fields Kubernetes always keeps at the root of a resource (and of embedded resources). */
const resourceMetaFields = new Set(['apiVersion', 'kind', 'metadata']);

/** The fields of `ObjectMeta` (meta/v1); anything else under `metadata` is unknown to the API server. */
export const objectMetaFields: ReadonlySet<string> = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Result of {@link pruneObject}. */
export interface PruneResult {
  object: unknown;
  /** Paths of the dropped fields (`spec.foo`, `spec.items[0].bar`), in document order. */
  unknownFields: string[];
}

/**
 * Drops every field the structural schema does not specify, as the API server does before storing a
 * custom resource. Fields under `x-kubernetes-preserve-unknown-fields: true` stay; `apiVersion`, `kind`
 * and `metadata` stay at the root and in `x-kubernetes-embedded-resource` objects, where `metadata` keeps
 * only `ObjectMeta` fields (so a misplaced `metadata.spec` is reported, as `kubectl` strict validation does).
 * Does not modify `object`; returns a pruned copy. With `isResource: false` the value is treated as a
 * plain field value (no resource metadata at its top).
 */
export function pruneObject(schema: JSONSchemaProps, object: unknown, options: { isResource?: boolean } = {}): PruneResult {
  const unknownFields: string[] = [];
  const copy = cloneJson(object);
  pruneNode(copy, schema, '', options.isResource ?? true, unknownFields);
  return { object: copy, unknownFields };
}

function pruneNode(value: unknown, schema: JSONSchemaProps | undefined, path: string, isResource: boolean, unknownFields: string[]): void {
  if (!isObject(schema)) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isObject(items)) return;
    value.forEach((item, index) => pruneNode(item, items, indexPath(path, index), items['x-kubernetes-embedded-resource'] === true, unknownFields));
    return;
  }
  if (!isObject(value)) return;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const additional = schema.additionalProperties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of Object.keys(value)) {
    const fieldPath = childPath(path, key);
    if (isResource && resourceMetaFields.has(key)) {
      if (key === 'metadata') pruneObjectMeta(value[key], fieldPath, unknownFields);
      continue;
    }
    const known = Object.hasOwn(properties, key) ? properties[key] : undefined;
    const sub = known ?? (isObject(additional) ? additional : undefined);
    if (sub !== undefined) {
      pruneNode(value[key], sub, fieldPath, sub['x-kubernetes-embedded-resource'] === true, unknownFields);
    } else if (additional !== true && !preserve) {
      delete value[key];
      unknownFields.push(fieldPath);
    }
  }
}

function pruneObjectMeta(metadata: unknown, path: string, unknownFields: string[]): void {
  if (!isObject(metadata)) return;
  for (const key of Object.keys(metadata)) {
    if (objectMetaFields.has(key)) continue;
    delete metadata[key];
    unknownFields.push(childPath(path, key));
  }
}

/** Deep copy of a JSON value (objects, arrays, scalars). */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    // defineProperty keeps a `__proto__` key a field: assigning it would set the copy's prototype.
    for (const [key, item] of Object.entries(value)) Object.defineProperty(out, key, { value: cloneJson(item), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return value;
}
