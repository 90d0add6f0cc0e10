/**
 * Quotes text like Go's `%q` (`strconv.Quote`), so predicate texts read exactly as upstream OLM
 * prints them: `"` and `\` escaped, the usual `\n`-style escapes, other characters Go does not
 * consider printable (controls, format characters, spaces other than U+0020) as `\x`, `\u`, `\U`.
 */
export function goQuote(text: string): string {
  let quoted = '"';
  for (const char of text) {
    const escape = SIMPLE_ESCAPES[char];
    if (escape !== undefined) {
      quoted += escape;
      continue;
    }
    const code = char.codePointAt(0) ?? 0;
    if (char === ' ' || PRINTABLE.test(char)) quoted += char;
    else if (code >= 0xd800 && code <= 0xdfff) quoted += '\\ufffd'; // a lone surrogate: Go sees invalid UTF-8
    else if (code < 0x80) quoted += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) quoted += `\\u${hex(code, 4)}`;
    else quoted += `\\U${hex(code, 8)}`;
  }
  return `${quoted}"`;
}

/** Go's `unicode.IsPrint` without the ASCII space: letters, marks, numbers, punctuation, symbols. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};
