/** A step into a JSON value: a property name or an array index. */
export type PathSegment = string | number;

/**
 * Renders a path the way Kubernetes prints field paths of custom resources:
 * properties joined by dots, array indices in brackets (`spec.items[2].name`).
 */
export function formatFieldPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** Joins a parent field path and a child property name. */
export function childPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}.${name}`;
}

/** Appends an array index to a field path. */
export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

/**
 * Formats a value as Kubernetes does in `Invalid value: <value>` (strings quoted,
 * numbers and booleans bare, null as `null`, everything else as JSON).
 */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The JSON type name of a value, as used in `must be of type integer: "string"` messages. */
export function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

/** True for plain JSON objects (not arrays, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
