import { findBase64Error } from './go-base64.js';
import { compareStrings, jsonKind } from '@olm/go-format';

/**
 * Decodes a JSON value into a typed shape with Go `encoding/json` semantics, so type errors read
 * exactly as upstream's (`json: cannot unmarshal number into Go struct field Channel.name of type
 * string`): field names match case-insensitively, unknown fields are ignored, `null` leaves the
 * zero value, and decoding continues after a type error, reporting the first one.
 */
export type GoShape =
  | { readonly kind: 'string' }
  | { readonly kind: 'bytes' }
  | { readonly kind: 'raw' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'int' }
  | { readonly kind: 'stringMap' }
  | { readonly kind: 'slice'; readonly element: GoShape }
  | { readonly kind: 'struct'; readonly goType: string; readonly fields: Readonly<Record<string, GoShape>>; readonly isPointer?: boolean };

export const goString: GoShape = { kind: 'string' };
export const goBytes: GoShape = { kind: 'bytes' };
export const goRaw: GoShape = { kind: 'raw' };
export const goBool: GoShape = { kind: 'bool' };
export const goInt: GoShape = { kind: 'int' };
export const goStringMap: GoShape = { kind: 'stringMap' };
export function goSlice(element: GoShape): GoShape {
  return { kind: 'slice', element };
}
/** A struct; `isPointer` for Go pointer fields (`*Icon`), which stay absent when missing or null. */
export function goStruct(goType: string, fields: Record<string, GoShape>, options: { isPointer?: boolean } = {}): GoShape {
  return options.isPointer === true ? { kind: 'struct', goType, fields, isPointer: true } : { kind: 'struct', goType, fields };
}

/** Go's zero value for a shape (what a missing or null field decodes to). */
function zeroValue(shape: GoShape): unknown {
  switch (shape.kind) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int':
      return 0;
    case 'stringMap':
      return {};
    case 'slice':
      return [];
    case 'raw':
      return undefined;
    case 'struct':
      if (shape.isPointer === true) return undefined;
      return Object.fromEntries(Object.entries(shape.fields).map(([name, field]) => [name, zeroValue(field)]));
  }
}

function goTypeString(shape: GoShape): string {
  switch (shape.kind) {
    case 'string':
      return 'string';
    case 'bytes':
      return '[]uint8';
    case 'raw':
      return 'json.RawMessage';
    case 'bool':
      return 'bool';
    case 'int':
      return 'int';
    case 'stringMap':
      return 'map[string]string';
    case 'slice':
      return `[]${goTypeString(shape.element)}`;
    case 'struct':
      return shape.goType;
  }
}

function structName(goType: string): string {
  const dot = goType.lastIndexOf('.');
  return dot === -1 ? goType : goType.slice(dot + 1);
}

/** Unicode simple case folding, close enough to Go's `strings.EqualFold` for field names. */
export function foldKey(key: string): string {
  return key.toUpperCase().toLowerCase();
}

interface DecodeState {
  firstError?: string;
  structType?: string;
  path: string[];
}

function typeError(state: DecodeState, value: unknown, shape: GoShape, valueText?: string): void {
  if (state.firstError !== undefined) return;
  const target = goTypeString(shape);
  const what = valueText ?? jsonKind(value);
  state.firstError =
    state.structType === undefined
      ? `json: cannot unmarshal ${what} into Go value of type ${target}`
      : `json: cannot unmarshal ${what} into Go struct field ${structName(state.structType)}.${state.path.join('.')} of type ${target}`;
}

function decodeValue(value: unknown, shape: GoShape, state: DecodeState): unknown {
  switch (shape.kind) {
    case 'raw':
      return value;
    case 'bool':
      if (value === null || value === undefined) return false;
      if (typeof value !== 'boolean') {
        typeError(state, value, shape);
        return false;
      }
      return value;
    case 'int':
      if (value === null || value === undefined) return 0;
      if (typeof value !== 'number') {
        typeError(state, value, shape);
        return 0;
      }
      if (!Number.isSafeInteger(value)) {
        typeError(state, value, shape, `number ${String(value)}`);
        return 0;
      }
      return value;
    case 'stringMap': {
      if (value === null || value === undefined) return {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        typeError(state, value, shape);
        return {};
      }
      const map: Record<string, string> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>).sort(([a], [b]) => compareStrings(a, b))) {
        if (item === null) continue;
        if (typeof item !== 'string') {
          state.path.push(key);
          typeError(state, item, goString);
          state.path.pop();
          continue;
        }
        map[key] = item;
      }
      return map;
    }
    case 'string':
      if (value === null || value === undefined) return '';
      if (typeof value !== 'string') {
        typeError(state, value, shape);
        return '';
      }
      return value;
    case 'bytes': {
      if (value === null || value === undefined) return '';
      if (typeof value !== 'string') {
        typeError(state, value, shape);
        return '';
      }
      const offset = findBase64Error(value);
      if (offset >= 0) {
        if (state.firstError === undefined) state.firstError = `illegal base64 data at input byte ${offset}`;
        return '';
      }
      return value;
    }
    case 'slice': {
      if (value === null || value === undefined) return [];
      if (!Array.isArray(value)) {
        typeError(state, value, shape);
        return [];
      }
      return value.map((item: unknown) => decodeValue(item, shape.element, state));
    }
    case 'struct': {
      if (value === null || value === undefined) return zeroValue(shape);
      if (typeof value !== 'object' || Array.isArray(value)) {
        typeError(state, value, shape);
        return zeroValue(shape);
      }
      const result: Record<string, unknown> = {};
      const fieldNames = Object.keys(shape.fields);
      for (const name of fieldNames) {
        const zero = zeroValue(shape.fields[name] as GoShape);
        if (zero !== undefined) result[name] = zero;
      }
      const record = value as Record<string, unknown>;
      // Go sees the blob after a map round trip, i.e. with keys sorted; the last match wins.
      for (const key of Object.keys(record).sort(compareStrings)) {
        const name = fieldNames.includes(key) ? key : fieldNames.find((candidate) => foldKey(candidate) === foldKey(key));
        if (name === undefined) continue;
        const outerStruct = state.structType;
        state.structType = shape.goType;
        state.path.push(name);
        const fieldShape = shape.fields[name] as GoShape;
        result[name] = decodeValue(record[key], fieldShape, state);
        state.path.pop();
        state.structType = outerStruct;
      }
      return result;
    }
  }
}

/**
 * Decodes `value` (a JSON object) into `shape`. Returns the decoded value and Go's first error
 * message, if any.
 */
export function decodeGoJson<T>(value: unknown, shape: GoShape): { value: T; error?: string } {
  const state: DecodeState = { path: [] };
  const decoded = decodeValue(value, shape, state) as T;
  return state.firstError === undefined ? { value: decoded } : { value: decoded, error: state.firstError };
}
