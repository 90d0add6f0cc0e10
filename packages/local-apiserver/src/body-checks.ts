import { ApiError, badRequest } from './errors.js';

/**
 * Checks every decoded request body before anything walks it recursively:
 * - nesting deeper than `maxBodyDepth` is a 400 (recursive code further on would otherwise overflow
 *   the stack and answer 500);
 * - a `__proto__` key anywhere is a 422: assigning it to a plain object changes that object's
 *   prototype instead of setting a field, and reading it reaches `Object.prototype`, which a later
 *   write would change for the whole process. No Kubernetes object has such a field.
 * The walk is iterative, so hostile depth cannot overflow it.
 */
export const maxBodyDepth = 1000;

export function checkRequestBody(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const pending: Array<{ value: object; path: string; depth: number }> = [{ value: body, path: '', depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path, depth } = next;
    if (depth > maxBodyDepth) throw badRequest(`the request body is nested too deeply: more than ${maxBodyDepth} levels at ${path || '<root>'}`);
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        if (typeof item === 'object' && item !== null) pending.push({ value: item as object, path: `${path}[${index}]`, depth: depth + 1 });
      });
      continue;
    }
    for (const key of Object.keys(value)) {
      const field = path === '' ? key : `${path}.${key}`;
      if (key === '__proto__') throw forbiddenFieldName(field);
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push({ value: item, path: field, depth: depth + 1 });
    }
  }
}

/** Path segments a JSON patch may not address: each reaches a prototype rather than a field. */
const prototypeSegments = new Set(['__proto__', 'constructor', 'prototype']);

export function checkPatchPath(pointer: string, segments: readonly string[]): void {
  const unsafe = segments.find((segment) => prototypeSegments.has(segment));
  if (unsafe !== undefined) {
    throw new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: path "${pointer}": segment "${unsafe}" is not allowed`, {
      causes: [{ reason: 'FieldValueForbidden', message: `segment "${unsafe}" is not allowed`, field: pointer }],
    });
  }
}

function forbiddenFieldName(field: string): ApiError {
  return new ApiError(422, 'Invalid', `the server rejected our request: ${field}: Forbidden: the field name "__proto__" is not allowed`, {
    causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: the field name "__proto__" is not allowed', field }],
  });
}
