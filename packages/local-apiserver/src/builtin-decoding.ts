import { builtinProtobufMessage, builtinProtobufSchemas } from './builtin-protobuf-schemas.js';
import type { FieldSchema, MessageSchema } from './protobuf-decode.js';
import { isJsonObject } from './kube-object.js';

/**
 * What Go's JSON decoder says when a built-in object has a value of the wrong type: kube-apiserver
 * decodes bodies into typed structs, so a ConfigMap whose `data` value is an object, or a container
 * `name` that is a number, is a 400 there before any validation runs:
 * `json: cannot unmarshal object into Go struct field ConfigMap.data of type string`.
 * The layouts come from the protobuf table (the Go structs' fields and types). Unknown fields are
 * left to pruning; `null` is every type's zero value, as in Go.
 */
export function builtinDecodingError(apiVersion: string, kind: string, object: Record<string, unknown>): string | undefined {
  const message = builtinProtobufMessage(apiVersion, kind);
  const schema = message === undefined ? undefined : builtinProtobufSchemas.get(message);
  return schema === undefined ? undefined : messageError(schema, object, '');
}

/** JSON field name → field, with Go embedded structs' fields lifted into their parent. */
const fieldsByName = new Map<string, ReadonlyMap<string, { field: FieldSchema; owner: string }>>();

function fieldsOf(schema: MessageSchema): ReadonlyMap<string, { field: FieldSchema; owner: string }> {
  let fields = fieldsByName.get(schema.name);
  if (fields) return fields;
  const collected = new Map<string, { field: FieldSchema; owner: string }>();
  for (const field of schema.fields.values()) {
    const inner = field.inline ? builtinProtobufSchemas.get(field.type) : undefined;
    if (inner) for (const [name, entry] of fieldsOf(inner)) collected.set(name, entry);
    else collected.set(field.jsonName, { field, owner: schema.name });
  }
  fieldsByName.set(schema.name, collected);
  fields = collected;
  return fields;
}

function messageError(schema: MessageSchema, object: Record<string, unknown>, path: string): string | undefined {
  const fields = fieldsOf(schema);
  for (const key of Object.keys(object)) {
    const entry = fields.get(key);
    const value = object[key];
    if (entry === undefined || value === null || value === undefined) continue;
    const fieldPath = path === '' ? key : `${path}.${key}`;
    const { field, owner } = entry;
    const mismatch = (found: unknown, goType: string) => `json: cannot unmarshal ${jsonKind(found)} into Go struct field ${owner}.${fieldPath} of type ${goType}`;
    if (field.cardinality === 'map') {
      if (!isJsonObject(value)) return mismatch(value, `map[string]${goTypeOf(field.type)}`);
      for (const item of Object.values(value)) {
        const error = valueError(field.type, item, fieldPath, mismatch);
        if (error) return error;
      }
    } else if (field.cardinality === 'repeated') {
      if (!Array.isArray(value)) return mismatch(value, `[]${goTypeOf(field.type)}`);
      for (const item of value) {
        const error = valueError(field.type, item, fieldPath, mismatch);
        if (error) return error;
      }
    } else {
      const error = valueError(field.type, value, fieldPath, mismatch);
      if (error) return error;
    }
  }
  return undefined;
}

function valueError(type: string, value: unknown, path: string, mismatch: (found: unknown, goType: string) => string): string | undefined {
  if (value === null || value === undefined) return undefined;
  switch (type) {
    case 'string':
    case 'bytes':
    case 'Time':
    case 'MicroTime':
      return typeof value === 'string' ? undefined : mismatch(value, goTypeOf(type));
    case 'bool':
      return typeof value === 'boolean' ? undefined : mismatch(value, 'bool');
    case 'int32':
    case 'int64': {
      const bits = type === 'int32' ? 31 : 63;
      const fits = typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** bits) && value <= 2 ** bits - 1;
      return fits ? undefined : mismatch(value, type);
    }
    case 'IntOrString':
      return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)) ? undefined : mismatch(value, 'intstr.IntOrString');
    case 'Quantity':
      return typeof value === 'string' || typeof value === 'number' ? undefined : mismatch(value, 'resource.Quantity');
    case 'FieldsV1':
      return isJsonObject(value) ? undefined : mismatch(value, 'v1.FieldsV1');
    default: {
      const schema = builtinProtobufSchemas.get(type);
      if (!schema) return undefined;
      if (!isJsonObject(value)) return mismatch(value, `v1.${type}`);
      return messageError(schema, value, path);
    }
  }
}

function goTypeOf(type: string): string {
  switch (type) {
    case 'bytes':
      return '[]uint8';
    case 'Time':
    case 'MicroTime':
      return `v1.${type}`;
    case 'IntOrString':
      return 'intstr.IntOrString';
    case 'Quantity':
      return 'resource.Quantity';
    case 'string':
    case 'bool':
    case 'int32':
    case 'int64':
      return type;
    default:
      return `v1.${type}`;
  }
}

/** How Go's decoder names a JSON value in its errors. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'number' : `number ${value}`;
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'string' ? 'string' : 'object';
}
