/**
 * Small helpers that reproduce how Go prints values in upstream messages (`%q`, `%T`, `%v` of a
 * string slice, compact JSON without HTML escaping), so our messages match opm's verbatim.
 */

/** Go `%q` / strconv.Quote for the text people write. */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char === '\x07') out += '\\a';
    else if (char === '\b') out += '\\b';
    else if (char === '\f') out += '\\f';
    else if (char === '\v') out += '\\v';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code <= 0x9f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** Go `%v` of a `[]string`: `[a b c]`. */
export function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

/** The Go type a decoded JSON value has when unmarshalled into `any` (`%T`). */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'float64';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return '[]interface {}';
  return 'map[string]interface {}';
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Copies a decoded JSON value with object keys sorted at every level, as Go's
 * `map[string]any` round trip does. Iterative, so deeply nested input cannot overflow the stack.
 */
export function sortKeysDeep(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const root: { value: unknown } = { value: undefined };
  const stack: Array<{ source: unknown; assign: (copy: unknown) => void }> = [
    { source: value, assign: (copy) => (root.value = copy) },
  ];
  while (stack.length > 0) {
    const { source, assign } = stack.pop() as { source: unknown; assign: (copy: unknown) => void };
    if (Array.isArray(source)) {
      const copy: unknown[] = new Array<unknown>(source.length);
      assign(copy);
      source.forEach((item, index) => {
        if (typeof item === 'object' && item !== null) stack.push({ source: item, assign: (c) => (copy[index] = c) });
        else copy[index] = item;
      });
    } else if (isPlainObject(source)) {
      const copy: Record<string, unknown> = {};
      assign(copy);
      for (const key of Object.keys(source).sort(compareStrings)) {
        const item = source[key];
        if (typeof item === 'object' && item !== null) {
          copy[key] = null; // keep key order; filled in below
          stack.push({ source: item, assign: (c) => (copy[key] = c) });
        } else {
          copy[key] = item;
        }
      }
    } else {
      assign(source);
    }
  }
  return root.value;
}

/** Byte-order string comparison (Go's `sort.Strings` on UTF-8 equals code-point order). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 order differs from code-point order only for astral vs. U+E000–U+FFFF; handle that case.
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const codeA = a.charCodeAt(index);
    const codeB = b.charCodeAt(index);
    if (codeA !== codeB) {
      const isSurrogateA = codeA >= 0xd800 && codeA <= 0xdfff;
      const isSurrogateB = codeB >= 0xd800 && codeB <= 0xdfff;
      if (isSurrogateA !== isSurrogateB) return isSurrogateA ? 1 : -1;
      return codeA - codeB;
    }
  }
  return a.length - b.length;
}

/** Compact JSON with sorted keys and no HTML escaping (Go `json.Marshal` after a map round trip). */
export function goCompactJson(value: unknown): string {
  return escapeLineSeparators(JSON.stringify(sortKeysDeep(value)) ?? 'null');
}

/** Go's encoder escapes U+2028 and U+2029 even with HTML escaping off; JSON.stringify does not. */
export function escapeLineSeparators(json: string): string {
  return json.replace(/[\u2028\u2029]/g, (char) => (char === '\u2028' ? '\\u2028' : '\\u2029'));
}
