import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from './json-syntax.js';

describe('findJsonSyntaxError (Go encoding/json scanner messages)', () => {
  it.each([
    ['{"a": oops}', 6, "invalid character 'o' looking for beginning of value"],
    ['{a: 1}', 1, "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', 5, "invalid character '1' after object key"],
    ['{"a": 1 "b": 2}', 8, `invalid character '"' after object key:value pair`],
    ['[1 2]', 3, "invalid character '2' after array element"],
    ['{"a": tru}', 9, "invalid character '}' in literal true (expecting 'e')"],
    ['{"a": "x\\q"}', 9, "invalid character 'q' in string escape code"],
    ['{"a": 1.}', 8, "invalid character '}' after decimal point in numeric literal"],
    ['{"a": [1, 2', 11, 'unexpected end of JSON input'],
    ['{"a": "\u0001"}', 7, "invalid character '\\u0001' in string literal"],
  ])('%j', (text, offset, message) => {
    expect(findJsonSyntaxError(text)).toEqual({ offset, message });
  });

  it('accepts valid JSON', () => {
    expect(findJsonSyntaxError('{"a": [1, -2.5e+3, true, false, null, "x\\u00e9", {}], "b": {"c": []}}')).toBeUndefined();
  });
});
