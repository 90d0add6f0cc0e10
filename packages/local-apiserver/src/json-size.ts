/**
 * The length of `JSON.stringify(value)`, counted without building the text, and only up to `stop`:
 * once the count passes it the walk ends and returns what it has (a value larger than `stop`).
 * The walk is iterative, so depth cannot overflow the stack.
 */
export function jsonSize(value: unknown, stop = Number.POSITIVE_INFINITY): number {
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && size <= stop) {
    const next = pending.pop();
    if (next === null || next === undefined) size += 4;
    else if (typeof next === 'string') size += stringSize(next);
    else if (typeof next === 'number' || typeof next === 'boolean') size += String(next).length;
    else if (Array.isArray(next)) {
      // brackets and commas
      size += 2 + Math.max(0, next.length - 1);
      for (const item of next) pending.push(item);
    } else if (typeof next === 'object') {
      const keys = Object.keys(next);
      size += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        const item = (next as Record<string, unknown>)[key];
        size += stringSize(key) + 1;
        pending.push(item);
      }
    }
  }
  return size;
}

/** Quotes plus UTF-8 bytes; escapes are counted as the characters they stand for (close enough for a limit). */
function stringSize(text: string): number {
  return 2 + Buffer.byteLength(text, 'utf8');
}
