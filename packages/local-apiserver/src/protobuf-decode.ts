import { formatTime } from '@olm/go-format';
import type { JsonObject } from './kube-object.js';
import { ProtobufReader, ProtobufWireError, WireType, type FieldTag } from './protobuf-wire.js';

/**
 * Schema-driven protobuf → JSON decoding: turns a message into the object a JSON client would have
 * sent (Go's JSON names, base64 bytes, RFC 3339 times, `omitempty` of zero values). The layout
 * language is described in `builtin-protobuf-schemas.ts`; `go-json.ts` reads the same layouts to
 * write objects as kube-apiserver does.
 */
export type ScalarType = 'string' | 'bool' | 'int32' | 'int64' | 'bytes' | 'double';
/** apimachinery types whose JSON form is not an object of their fields (`JSON`: any JSON value). */
export type SpecialType = 'Time' | 'MicroTime' | 'IntOrString' | 'Quantity' | 'FieldsV1' | 'JSON';

export interface FieldSchema {
  readonly jsonName: string;
  readonly number: number;
  /** A scalar, a special type or the name of a message. */
  readonly type: string;
  readonly cardinality: 'single' | 'repeated' | 'map';
  /**
   * A Go pointer: a zero scalar on the wire is kept instead of omitted; a message or special type is
   * left out of JSON when absent instead of written as its zero value (`{}`, `null`, `"0"`).
   */
  readonly keepZero: boolean;
  /** A Go field without `omitempty`: JSON always carries it, zero or not (`""`, `0`, `false`, `null`). */
  readonly alwaysWritten: boolean;
  /** A Go embedded struct: its fields land in the parent object. */
  readonly inline: boolean;
}

export interface MessageSchema {
  readonly name: string;
  readonly fields: ReadonlyMap<number, FieldSchema>;
}

export type ProtobufSchemas = ReadonlyMap<string, MessageSchema>;

export const scalarTypes: ReadonlySet<string> = new Set(['string', 'bool', 'int32', 'int64', 'bytes', 'double']);
export const specialTypes: ReadonlySet<string> = new Set(['Time', 'MicroTime', 'IntOrString', 'Quantity', 'FieldsV1', 'JSON']);
/** Types of the JSON-only layouts (kinds never sent as protobuf here): decoding them is refused. */
const jsonOnlyTypes = new Set<string>(['double', 'JSON']);
const varintTypes = new Set<string>(['bool', 'int32', 'int64']);
const fieldPattern = /^(\.\.\.)?([A-Za-z$][A-Za-z0-9$-]*)=([1-9][0-9]*)(?::([A-Za-z][A-Za-z0-9]*))?(\[\]|\{\})?([?!])?$/;

/** Parses a layout table; a mistake in it (bad syntax, duplicate number, unknown type) throws at once. */
export function parseProtobufSchemas(table: Readonly<Record<string, string>>): ProtobufSchemas {
  const schemas = new Map<string, MessageSchema>();
  for (const [name, text] of Object.entries(table)) {
    const fields = new Map<number, FieldSchema>();
    for (const token of text.split(/\s+/).filter((part) => part !== '')) {
      const match = fieldPattern.exec(token);
      if (!match) throw new Error(`protobuf schema ${name}: cannot parse field "${token}"`);
      const [, inline, jsonName = '', number = '', type = 'string', suffix, marker] = match;
      const field: FieldSchema = {
        jsonName,
        number: Number(number),
        type,
        cardinality: suffix === '[]' ? 'repeated' : suffix === '{}' ? 'map' : 'single',
        keepZero: marker === '?',
        alwaysWritten: marker === '!',
        inline: inline === '...',
      };
      if (fields.has(field.number)) throw new Error(`protobuf schema ${name}: field number ${field.number} used twice`);
      if (field.keepZero && field.cardinality !== 'single') throw new Error(`protobuf schema ${name}.${jsonName}: "?" does not apply to lists and maps`);
      if (field.inline && (field.cardinality !== 'single' || scalarTypes.has(type) || specialTypes.has(type))) {
        throw new Error(`protobuf schema ${name}.${jsonName}: only a single message can be inlined`);
      }
      fields.set(field.number, field);
    }
    schemas.set(name, { name, fields });
  }
  for (const schema of schemas.values()) {
    for (const field of schema.fields.values()) {
      if (!scalarTypes.has(field.type) && !specialTypes.has(field.type) && !schemas.has(field.type)) {
        throw new Error(`protobuf schema ${schema.name}.${field.jsonName}: unknown type ${field.type}`);
      }
    }
  }
  return schemas;
}

/** The body cannot be decoded; the message names the field path and byte offset. */
export class ProtobufDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

export interface DecodeOptions {
  /** Collects one line per field this server does not know that carried data (it is dropped). */
  readonly warnings?: string[];
}

const maxWarnings = 10;
const omitted = Symbol('omitted');
/** A JSON value, or `omitted` (the field stays out of the object). */
type Decoded = unknown;

/**
 * Decodes one message of `schemas` from its serialized fields (no envelope); pass a reader over a
 * larger body to have errors report offsets in that body.
 */
export function decodeProtobufMessage(input: Uint8Array | ProtobufReader, messageName: string, schemas: ProtobufSchemas, options: DecodeOptions = {}): JsonObject {
  const decoder = new MessageDecoder(schemas, options.warnings);
  return decoder.message(input instanceof ProtobufReader ? input : new ProtobufReader(input), messageName, '', {});
}

const utf8 = new TextDecoder('utf-8');

function describe(path: string): string {
  return path === '' ? 'the object' : path;
}

function wireName(wireType: number): string {
  return ['varint', '64-bit', 'length-delimited', 'group start', 'group end', '32-bit'][wireType] ?? String(wireType);
}

class MessageDecoder {
  private readonly warned = new Set<string>();

  constructor(
    private readonly schemas: ProtobufSchemas,
    private readonly warnings: string[] | undefined,
  ) {}

  /** Decodes a message's fields into `target` (repeated occurrences of a message merge, as protobuf says). */
  message(reader: ProtobufReader, messageName: string, path: string, target: JsonObject): JsonObject {
    const schema = this.schemas.get(messageName);
    if (!schema) throw new ProtobufDecodeError(`${describe(path)}: no protobuf schema for ${messageName}`);
    while (!reader.isDone()) {
      let where = `${describe(path)} (${messageName})`;
      try {
        const tag = reader.tag();
        const field = schema.fields.get(tag.field);
        where = `${describe(path)} (protobuf field ${tag.field} of ${messageName})`;
        if (!field) {
          if (reader.skip(tag.wireType)) this.warnUnknown(messageName, tag.field, path);
          continue;
        }
        const fieldPath = field.inline ? path : path === '' ? field.jsonName : `${path}.${field.jsonName}`;
        where = `${describe(fieldPath)} (protobuf field ${tag.field} of ${messageName})`;
        this.field(reader, tag, field, fieldPath, target);
      } catch (error) {
        // Nested messages report their own path; only wire errors of this message's fields are wrapped here.
        if (error instanceof ProtobufWireError) throw new ProtobufDecodeError(`${where}: ${error.message}`);
        throw error;
      }
    }
    return target;
  }

  private field(reader: ProtobufReader, tag: FieldTag, field: FieldSchema, path: string, target: JsonObject): void {
    switch (field.cardinality) {
      case 'single': {
        if (field.inline) {
          this.expectWireType(tag, WireType.lengthDelimited, field, path);
          this.message(reader.lengthDelimited(), field.type, path, target);
          return;
        }
        const existing = target[field.jsonName];
        const value = this.value(reader, tag, field, path, isMergeable(existing) ? existing : undefined);
        const isZeroScalar = scalarTypes.has(field.type) && (value === '' || value === false || value === 0);
        if (value === omitted || (isZeroScalar && !field.keepZero)) delete target[field.jsonName];
        else target[field.jsonName] = value;
        return;
      }
      case 'repeated': {
        const list = Array.isArray(target[field.jsonName]) ? (target[field.jsonName] as unknown[]) : [];
        if (varintTypes.has(field.type) && tag.wireType === WireType.lengthDelimited) {
          // Packed encoding: one payload of consecutive varints.
          const packed = reader.lengthDelimited();
          while (!packed.isDone()) list.push(this.varintScalar(packed.varint(), field.type, `${path}[${list.length}]`));
        } else {
          const value = this.value(reader, tag, field, `${path}[${list.length}]`, undefined);
          list.push(value === omitted ? null : value);
        }
        target[field.jsonName] = list;
        return;
      }
      case 'map': {
        this.expectWireType(tag, WireType.lengthDelimited, field, path);
        const map = isMergeable(target[field.jsonName]) ? (target[field.jsonName] as JsonObject) : {};
        const [key, value] = this.mapEntry(reader.lengthDelimited(), field, path);
        // An own property even for a key like `__proto__`, as JSON.parse makes it.
        Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
        target[field.jsonName] = map;
        return;
      }
    }
  }

  /** A map entry is a message with the key in field 1 and the value in field 2. */
  private mapEntry(entry: ProtobufReader, field: FieldSchema, path: string): [string, unknown] {
    let key = '';
    let value: Decoded | undefined;
    while (!entry.isDone()) {
      const tag = entry.tag();
      if (tag.field === 1) {
        if (tag.wireType !== WireType.lengthDelimited) throw new ProtobufDecodeError(`${path}: map key has wire type ${wireName(tag.wireType)}, expected length-delimited`);
        key = utf8.decode(entry.lengthDelimited().rest());
      } else if (tag.field === 2) {
        value = this.value(entry, tag, field, `${path}[${key}]`, undefined);
      } else {
        entry.skip(tag.wireType);
      }
    }
    // An absent value is the zero value of its type.
    if (value === undefined) value = varintTypes.has(field.type) ? this.varintScalar(0n, field.type, path) : this.payload(new ProtobufReader(new Uint8Array(0)), field.type, `${path}[${key}]`, undefined);
    return [key, value === omitted ? null : value];
  }

  /** One value of a field's type; `into` is an earlier occurrence of the same message field, to merge. */
  private value(reader: ProtobufReader, tag: FieldTag, field: FieldSchema, path: string, into: JsonObject | undefined): Decoded {
    if (jsonOnlyTypes.has(field.type)) throw new ProtobufDecodeError(`${describe(path)}: ${field.type} fields are not decoded from protobuf`);
    if (varintTypes.has(field.type)) {
      this.expectWireType(tag, WireType.varint, field, path);
      return this.varintScalar(reader.varint(), field.type, path);
    }
    this.expectWireType(tag, WireType.lengthDelimited, field, path);
    return this.payload(reader.lengthDelimited(), field.type, path, into);
  }

  /** A length-delimited value: a string, bytes, a special type or a message. */
  private payload(payload: ProtobufReader, type: string, path: string, into: JsonObject | undefined): Decoded {
    switch (type) {
      case 'string':
        return utf8.decode(payload.rest());
      case 'bytes':
        return Buffer.from(payload.rest()).toString('base64');
      case 'Time':
      case 'MicroTime':
        return this.time(payload, type === 'MicroTime', path);
      case 'IntOrString':
        return this.intOrString(payload, path);
      case 'Quantity': {
        // resource.Quantity: its canonical string in field 1; the zero Quantity reads as "0".
        let text = '';
        this.eachField(payload, path, (fieldNumber, inner, tag) => {
          if (fieldNumber !== 1) return false;
          this.expectInner(tag, WireType.lengthDelimited, path, 'Quantity.string');
          text = utf8.decode(inner.lengthDelimited().rest());
          return true;
        });
        return text === '' ? '0' : text;
      }
      case 'FieldsV1': {
        let raw: Uint8Array | undefined;
        this.eachField(payload, path, (fieldNumber, inner, tag) => {
          if (fieldNumber !== 1) return false;
          this.expectInner(tag, WireType.lengthDelimited, path, 'FieldsV1.Raw');
          raw = inner.lengthDelimited().rest();
          return true;
        });
        if (raw === undefined || raw.length === 0) return omitted;
        try {
          return JSON.parse(utf8.decode(raw)) as unknown;
        } catch {
          throw new ProtobufDecodeError(`${describe(path)}: FieldsV1 does not hold valid JSON`);
        }
      }
      default:
        return this.message(payload, type, path, into ?? {});
    }
  }

  private varintScalar(raw: bigint, type: string, path: string): unknown {
    if (type === 'bool') return raw !== 0n;
    const value = BigInt.asIntN(type === 'int32' ? 32 : 64, raw);
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new ProtobufDecodeError(`${describe(path)}: ${value} is outside the integers JSON clients can represent exactly`);
    }
    return Number(value);
  }

  /** meta/v1 Time and MicroTime: `{seconds, nanos}`; an empty message is the zero time, `null` in JSON. */
  private time(payload: ProtobufReader, isMicro: boolean, path: string): Decoded {
    if (payload.isDone()) return omitted;
    let seconds = 0n;
    let nanos = 0n;
    this.eachField(payload, path, (fieldNumber, inner, tag) => {
      if (fieldNumber !== 1 && fieldNumber !== 2) return false;
      this.expectInner(tag, WireType.varint, path, fieldNumber === 1 ? 'seconds' : 'nanos');
      const value = inner.varint();
      if (fieldNumber === 1) seconds = BigInt.asIntN(64, value);
      else nanos = BigInt.asIntN(32, value);
      return true;
    });
    // Years 0000-9999, as RFC 3339 (and Go's time.MarshalJSON) allow.
    if (seconds < -62_167_219_200n || seconds > 253_402_300_799n) throw new ProtobufDecodeError(`${describe(path)}: time ${seconds}s is outside the years 0000-9999`);
    if (nanos < 0n || nanos > 999_999_999n) throw new ProtobufDecodeError(`${describe(path)}: nanos ${nanos} must be within 0-999999999`);
    const text = formatTime(new Date(Number(seconds) * 1000));
    return isMicro ? `${text.slice(0, -1)}.${String(nanos / 1000n).padStart(6, '0')}Z` : text;
  }

  /** util/intstr IntOrString: `{type, intVal, strVal}` → a number or a string. */
  private intOrString(payload: ProtobufReader, path: string): unknown {
    let kind = 0n;
    let intValue = 0;
    let text = '';
    this.eachField(payload, path, (fieldNumber, inner, tag) => {
      if (fieldNumber === 1 || fieldNumber === 2) {
        this.expectInner(tag, WireType.varint, path, fieldNumber === 1 ? 'IntOrString.type' : 'IntOrString.intVal');
        const value = inner.varint();
        if (fieldNumber === 1) kind = BigInt.asIntN(64, value);
        else intValue = Number(BigInt.asIntN(32, value));
        return true;
      }
      if (fieldNumber === 3) {
        this.expectInner(tag, WireType.lengthDelimited, path, 'IntOrString.strVal');
        text = utf8.decode(inner.lengthDelimited().rest());
        return true;
      }
      return false;
    });
    if (kind === 0n) return intValue;
    if (kind === 1n) return text;
    throw new ProtobufDecodeError(`${describe(path)}: IntOrString type ${kind} is neither 0 (int) nor 1 (string)`);
  }

  /** Visits the fields of a special type; `visit` reads the value and returns true, or false to skip it. */
  private eachField(reader: ProtobufReader, path: string, visit: (fieldNumber: number, reader: ProtobufReader, tag: FieldTag) => boolean): void {
    try {
      while (!reader.isDone()) {
        const tag = reader.tag();
        if (!visit(tag.field, reader, tag)) reader.skip(tag.wireType);
      }
    } catch (error) {
      if (error instanceof ProtobufWireError) throw new ProtobufDecodeError(`${describe(path)}: ${error.message}`);
      throw error;
    }
  }

  private expectWireType(tag: FieldTag, expected: number, field: FieldSchema, path: string): void {
    if (tag.wireType !== expected) {
      throw new ProtobufDecodeError(`${describe(path)}: protobuf field ${field.number} has wire type ${wireName(tag.wireType)}, expected ${wireName(expected)} for a ${field.type} at byte ${tag.offset}`);
    }
  }

  private expectInner(tag: FieldTag, expected: number, path: string, name: string): void {
    if (tag.wireType !== expected) throw new ProtobufDecodeError(`${describe(path)}: ${name} has wire type ${wireName(tag.wireType)}, expected ${wireName(expected)} at byte ${tag.offset}`);
  }

  private warnUnknown(messageName: string, fieldNumber: number, path: string): void {
    if (!this.warnings) return;
    const text = `protobuf field ${fieldNumber} of ${messageName} at ${describe(path)} is not known to this server and was dropped; send the object as JSON to keep it`;
    if (this.warned.has(text) || this.warned.size >= maxWarnings) return;
    this.warned.add(text);
    this.warnings.push(text);
  }
}

function isMergeable(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
