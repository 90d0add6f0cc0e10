import { describe, expect, it } from 'vitest';
import { compareStrings, goList, goQuote, goQuoteList, goTypeName } from './index.js';

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
    expect(goQuote('\u2028\u00ad\x00')).toBe('"\\u2028\\u00ad\\x00"');
  });

  it.each([
    ['', '""'],
    ['日本語 😀', '"日本語 😀"'],
    ['\x07\b\f\r\v', '"\\a\\b\\f\\r\\v"'],
    ["it's", '"it\'s"'],
  ])('quotes %j as %s', (text, quoted) => {
    expect(goQuote(text)).toBe(quoted);
  });
});

describe('Go fmt verbs', () => {
  it('writes %v and %q of a []string and %T of decoded JSON', () => {
    expect(goList(['a', 'b c'])).toBe('[a b c]');
    expect(goQuoteList(['a', 'b"c'])).toBe('["a" "b\\"c"]');
    expect(goQuoteList([])).toBe('[]');
    expect([null, 'x', 1, true, [], {}].map(goTypeName)).toEqual(['<nil>', 'string', 'float64', 'bool', '[]interface {}', 'map[string]interface {}']);
  });

  it('orders strings as Go does (UTF-8 bytes, not UTF-16 units)', () => {
    expect(['\uffff', '\u{10000}', 'b', 'a', 'ab'].sort(compareStrings)).toEqual(['a', 'ab', 'b', '\uffff', '\u{10000}']);
    expect(compareStrings('x', 'x')).toBe(0);
  });
});
