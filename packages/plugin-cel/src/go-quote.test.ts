import { describe, expect, it } from 'vitest';
import { goQuote } from './go-quote.js';

describe('goQuote', () => {
  it('wraps plain text in double quotes', () => {
    expect(goQuote('properties.exists(p, p.type == "x")')).toBe('"properties.exists(p, p.type == \\"x\\")"');
  });

  it('escapes backslashes, newlines, tabs and control characters like Go', () => {
    expect(goQuote('a\\b\n\t\x01\x7f')).toBe('"a\\\\b\\n\\t\\x01\\x7f"');
  });

  it('keeps printable unicode as is', () => {
    expect(goQuote('zertifiziert ✓')).toBe('"zertifiziert ✓"');
  });

  it('escapes characters Go does not consider printable', () => {
    expect(goQuote('a\u00a0b\u200bc\u0085')).toBe('"a\\u00a0b\\u200bc\\u0085"');
    expect(goQuote('\u{e0001}')).toBe('"\\U000e0001"');
    expect(goQuote('\ud800')).toBe('"\\ufffd"');
  });
});
