import { badRequest } from './errors.js';

/**
 * Checks every decoded request body before anything walks it recursively: nesting deeper than
 * `maxBodyDepth` is a 400 (recursive code further on would otherwise overflow the stack and answer
 * 500). The walk is iterative, so hostile depth cannot overflow it. Keys such as `__proto__` are
 * legal (Kubernetes map keys allow them): code that handles client keys reads own fields and sets
 * them with `ownField` and `setField`.
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
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push({ value: item, path: path === '' ? key : `${path}.${key}`, depth: depth + 1 });
    }
  }
}
