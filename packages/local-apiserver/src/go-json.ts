import { goJson, sortMapKeys } from '@olm/go-format';
import { builtinProtobufSchemas } from './builtin-protobuf-schemas.js';
import { isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';
import { scalarTypes, type FieldSchema, type ProtobufSchemas } from './protobuf-decode.js';
import { groupVersion, type ResourceType } from './resource-type.js';

/**
 * Objects as kube-apiserver's Go JSON encoder writes them, so that clients see the same bytes:
 * - built-in kinds are Go structs: `kind`, `apiVersion` first, then fields in struct declaration
 *   order at every level (read from the layouts in `builtin-protobuf-schemas.ts`), Go maps with
 *   sorted keys, zero `omitempty` fields dropped, Go value structs always written (`status: {}`,
 *   `resources: {}`, `creationTimestamp: null`), fields the layouts do not know last, sorted;
 * - custom resources are decoded into unstructured maps, which Go writes with sorted keys at every
 *   level (lists too: `apiVersion, items, kind, metadata`).
 * The write path stores objects in this form, so reads send them as they are.
 */
interface JsonField {
  readonly name: string;
  readonly type: string;
  readonly cardinality: FieldSchema['cardinality'];
  readonly pointer: boolean;
  readonly always: boolean;
}

interface JsonLayout {
  readonly fields: readonly JsonField[];
  readonly known: ReadonlySet<string>;
}

const omitted = Symbol('omitted');
const typeMetaFields: JsonField[] = ['kind', 'apiVersion'].map((name) => ({ name, type: 'string', cardinality: 'single', pointer: false, always: false }));

class Layouts {
  private readonly messages = new Map<string, JsonLayout>();
  private readonly roots = new Map<string, JsonLayout>();

  constructor(private readonly schemas: ProtobufSchemas) {}

  has(name: string): boolean {
    return this.schemas.has(name);
  }

  message(name: string): JsonLayout {
    let layout = this.messages.get(name);
    if (!layout) {
      layout = toLayout(this.fieldsOf(name));
      this.messages.set(name, layout);
    }
    return layout;
  }

  /** A top-level kind: TypeMeta's `kind` and `apiVersion`, then the message's fields. */
  root(name: string): JsonLayout {
    let layout = this.roots.get(name);
    if (!layout) {
      layout = toLayout([...typeMetaFields, ...this.message(name).fields]);
      this.roots.set(name, layout);
    }
    return layout;
  }

  private fieldsOf(name: string): JsonField[] {
    const schema = this.schemas.get(name);
    if (!schema) throw new Error(`no layout for ${name}`);
    const fields: JsonField[] = [];
    for (const field of schema.fields.values()) {
      // Go embedded structs put their fields in the parent, in place.
      if (field.inline) fields.push(...this.fieldsOf(field.type));
      else fields.push({ name: field.jsonName, type: field.type, cardinality: field.cardinality, pointer: field.keepZero, always: field.alwaysWritten });
    }
    return fields;
  }
}

function toLayout(fields: JsonField[]): JsonLayout {
  return { fields, known: new Set(fields.map((field) => field.name)) };
}

const layouts = new Layouts(builtinProtobufSchemas);

/** Sets an own property, even `__proto__` (as JSON.parse makes it). */
function setOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function isZeroScalar(value: unknown): boolean {
  return value === '' || value === 0 || value === false;
}

function writeMessage(layout: JsonLayout, value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const field of layout.fields) {
    const raw = Object.prototype.hasOwnProperty.call(value, field.name) ? value[field.name] : undefined;
    const written = writeField(field, raw);
    if (written !== omitted) out[field.name] = written;
  }
  let unknown: string[] | undefined;
  for (const key of Object.keys(value)) if (!layout.known.has(key) && value[key] !== undefined) (unknown ??= []).push(key);
  if (unknown) for (const key of unknown.sort()) setOwn(out, key, value[key]);
  return out;
}

function writeField(field: JsonField, raw: unknown): unknown {
  if (raw === undefined || raw === null) return absent(field);
  if (field.cardinality === 'repeated') {
    if (!Array.isArray(raw)) return raw;
    if (raw.length === 0) return field.always ? raw : omitted;
    return raw.map((item) => writeValue(field.type, item));
  }
  if (field.cardinality === 'map') {
    if (!isJsonObject(raw)) return raw;
    const keys = Object.keys(raw).sort();
    if (keys.length === 0) return field.always ? {} : omitted;
    const out: JsonObject = {};
    for (const key of keys) setOwn(out, key, writeValue(field.type, raw[key]));
    return out;
  }
  if (scalarTypes.has(field.type)) return !field.pointer && !field.always && isZeroScalar(raw) ? omitted : raw;
  return writeValue(field.type, raw);
}

/** What Go writes for a field that is absent (or null) in the stored JSON. */
function absent(field: JsonField): unknown {
  if (field.cardinality !== 'single') return field.always ? null : omitted;
  if (field.pointer) return omitted;
  switch (field.type) {
    case 'Time':
    case 'MicroTime':
      return null;
    case 'Quantity':
      return '0';
    case 'IntOrString':
      return 0;
    case 'string':
      return field.always ? '' : omitted;
    case 'bool':
      return field.always ? false : omitted;
    case 'int32':
    case 'int64':
    case 'double':
      return field.always ? 0 : omitted;
    case 'bytes':
    case 'JSON':
    case 'FieldsV1':
      return field.always ? null : omitted;
    default:
      return writeMessage(layouts.message(field.type), {});
  }
}

function writeValue(type: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (type === 'JSON') return sortMapKeys(value);
  if (type === 'FieldsV1') return isJsonObject(value) ? sortedFieldSet(value) : value;
  if (!layouts.has(type) || !isJsonObject(value)) return value;
  return writeMessage(layouts.message(type), value);
}


/** structured-merge-diff's order of FieldsV1 keys: `.` first, then fields, keys, values, indexes. */
const fieldSetRank: Record<string, number> = { '.': 0, f: 1, k: 2, v: 3, i: 4 };

function compareFieldSetKeys(left: string, right: string): number {
  const leftRank = fieldSetRank[left === '.' ? '.' : left.charAt(0)] ?? 5;
  const rightRank = fieldSetRank[right === '.' ? '.' : right.charAt(0)] ?? 5;
  if (leftRank !== rightRank) return leftRank - rightRank;
  if (leftRank === 4) return Number(left.slice(2)) - Number(right.slice(2));
  return left < right ? -1 : left > right ? 1 : 0;
}

function sortedFieldSet(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort(compareFieldSetKeys)) {
    const child = value[key];
    setOwn(out, key, isJsonObject(child) ? sortedFieldSet(child) : child);
  }
  return out;
}

function isCustomResource(type: ResourceType): boolean {
  return type.crdName !== undefined || !layouts.has(type.kind);
}

/** A built-in object of `kind` (a layout name) in Go's form; unknown kinds get sorted keys. */
export function writeBuiltin(kind: string, object: JsonObject): JsonObject {
  if (!layouts.has(kind)) return sortMapKeys(object) as JsonObject;
  return writeMessage(layouts.root(kind), object);
}

/**
 * An object of `type` in the form kube-apiserver writes it (what the store keeps). A custom
 * resource's metadata still goes through Go's ObjectMeta (kube-apiserver coerces it), so its empty
 * and zero fields are dropped as a built-in's are.
 */
export function canonicalObject(type: ResourceType, object: KubeObject): KubeObject {
  if (!isCustomResource(type)) return writeMessage(layouts.root(type.kind), object) as KubeObject;
  return sortMapKeys({ ...object, metadata: writeMessage(layouts.message('ObjectMeta'), object.metadata) }) as KubeObject;
}

/** Puts `metadata` back in order after fields were set on a canonical object (resourceVersion, managedFields, …). */
export function canonicalMetadata(type: ResourceType, object: KubeObject): KubeObject {
  const metadata = writeMessage(layouts.message('ObjectMeta'), object.metadata);
  const ordered = isCustomResource(type) ? sortMapKeys(metadata) : metadata;
  // Replaced in place: the metadata key keeps its position.
  return { ...object, metadata: ordered as KubeObject['metadata'] };
}

/**
 * A watch BOOKMARK's object: kube's empty object of the kind with only a resourceVersion (and
 * annotations), which for a built-in kind still has its Go value structs (`spec: {containers: null}`).
 */
export function bookmarkObject(type: ResourceType, version: string, metadata: JsonObject): JsonObject {
  const object = { kind: type.kind, apiVersion: groupVersion(type.group, version), metadata };
  return isCustomResource(type) ? (sortMapKeys(object) as JsonObject) : writeMessage(layouts.root(type.kind), object);
}

/** A list response: `kind, apiVersion, metadata, items` for built-ins; sorted keys for custom resources. */
export function listObject(type: ResourceType, version: string, listMeta: JsonObject, items: readonly KubeObject[]): JsonObject {
  const apiVersion = groupVersion(type.group, version);
  if (isCustomResource(type)) return { apiVersion, items, kind: type.listKind, metadata: sortMapKeys(listMeta) };
  return { kind: type.listKind, apiVersion, metadata: writeMessage(layouts.message('ListMeta'), listMeta), items };
}

/** JSON text as Go's `json.Encoder` writes it (the objects are already in Go's order), with its trailing newline. */
export function goJsonText(value: unknown): string {
  return `${goJson(value, { sortMapKeys: false })}\n`;
}
