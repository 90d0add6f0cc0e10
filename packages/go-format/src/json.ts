import { compareStrings } from './compare-strings.js';

/**
 * JSON text as Go's encoding/json writes it, so hashes, stored property values and API responses
 * match upstream byte for byte:
 * - plain objects are Go maps: keys sorted in Go's (byte) order at every level;
 * - `goStruct` values are Go structs: fields in declaration order, `undefined` ones left out (omitempty);
 * - `<`, `>`, `&` written as `\u003c`, `\u003e`, `\u0026` (json.Marshal's and json.Encoder's default),
 *   U+2028 and U+2029 always escaped, a lone surrogate (no UTF-8 form) written as U+FFFD, the
 *   character Go's decoder makes of it;
 * - compact unless `indent` is given, no trailing newline (json.Encoder adds one: append it).
 * Numbers are written as JavaScript writes them, which equals Go's float64 form (`1e+21`, `1e-7`).
 */
export interface GoJsonOptions {
  /** Sort plain objects' keys as Go sorts map keys (default); `false` keeps their order, for objects already in Go's order. */
  readonly sortMapKeys?: boolean;
  /** Escape `<`, `>` and `&` (default, as Go); `false` as `SetEscapeHTML(false)`. */
  readonly escapeHtml?: boolean;
  /** Indent as `json.MarshalIndent` / `Encoder.SetIndent("", indent)`: spaces or text per level; compact when absent. */
  readonly indent?: number | string;
}

/** A Go struct: fields in declaration order; a field whose value is `undefined` is left out (`omitempty`). */
export class GoStruct {
  constructor(readonly fields: readonly (readonly [string, unknown])[]) {}

  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of this.fields) if (value !== undefined) setOwn(out, name, value);
    return out;
  }
}

export function goStruct(fields: readonly (readonly [string, unknown])[]): GoStruct {
  return new GoStruct(fields);
}

export function goJson(value: unknown, options: GoJsonOptions = {}): string {
  const text = JSON.stringify(options.sortMapKeys === false ? value : sortMapKeys(value), null, options.indent) ?? 'null';
  return escapeGoJson(text, options.escapeHtml !== false);
}

const htmlAndSeparators = /[<>&\u2028\u2029]/;
const htmlAndSeparatorsGlobal = /[<>&\u2028\u2029]/g;
const separators = /[\u2028\u2029]/;
const separatorsGlobal = /[\u2028\u2029]/g;
// An escaped backslash, or the escape JSON.stringify writes for a lone surrogate.
const loneSurrogateEscapes = /\\(?:\\|u[dD][89a-fA-F][0-9a-fA-F]{2})/g;

function escapeGoJson(text: string, escapeHtml: boolean): string {
  let out = text;
  const unsafe = escapeHtml ? htmlAndSeparators : separators;
  if (unsafe.test(out)) {
    out = out.replace(escapeHtml ? htmlAndSeparatorsGlobal : separatorsGlobal, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  if (out.includes('\\ud') || out.includes('\\uD')) out = out.replace(loneSurrogateEscapes, (escape) => (escape === '\\\\' ? escape : '\ufffd'));
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Sets an own property, even `__proto__` (as JSON.parse makes it). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * A copy of a JSON value with map keys in Go's order at every level (structs keep theirs), as a
 * `map[string]any` round trip leaves it. Iterative, so deeply nested hostile input cannot overflow the stack.
 */
export function sortMapKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const root: { value: unknown } = { value: undefined };
  const stack: { source: unknown; assign: (copy: unknown) => void }[] = [{ source: value, assign: (copy) => (root.value = copy) }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { source, assign } = next;
    if (Array.isArray(source)) {
      const copy: unknown[] = new Array<unknown>(source.length);
      assign(copy);
      source.forEach((item: unknown, index) => {
        if (typeof item === 'object' && item !== null) stack.push({ source: item, assign: (child) => (copy[index] = child) });
        else copy[index] = item;
      });
      continue;
    }
    const isStruct = source instanceof GoStruct;
    if (!isStruct && !isPlainObject(source)) {
      assign(source);
      continue;
    }
    const entries = isStruct ? source.fields : Object.entries(source).sort(([a], [b]) => compareStrings(a, b));
    const copy: Record<string, unknown> = {};
    assign(copy);
    for (const [key, item] of entries) {
      if (item === undefined) continue;
      setOwn(copy, key, item); // holds the key's place; objects are filled in below
      if (typeof item === 'object' && item !== null) stack.push({ source: item, assign: (child) => setOwn(copy, key, child) });
    }
  }
  return root.value;
}

/** The JSON kind Go's decoder names in "cannot unmarshal X into …". */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'array';
  return 'object';
}
