import { describe, expect, it } from 'vitest';
import { decodeGoBase64, findBase64Error } from './go-base64.js';

describe('Go StdEncoding base64', () => {
  it.each([
    ['aGVsbG8=', -1],
    ['aGVs\nbG8=\r\n', -1],
    ['', -1],
    ['aGVsbG8', 4], // missing padding: the start of the short final quantum
    ['abc', 0],
    ['iVB!', 3],
    ['ab$c', 2],
    ['aGVsbG8=x', 8], // data after padding
    ['a===', 1],
    ['aG==', -1],
    ['aG=x', 2],
    ['aG=', 3],
  ])('%j → error at %i', (text, offset) => {
    expect(findBase64Error(text)).toBe(offset);
  });

  it('decodes valid input and throws Go’s message otherwise', () => {
    expect(decodeGoBase64('aGVsbG8=').toString()).toBe('hello');
    expect(() => decodeGoBase64('not base64')).toThrow('illegal base64 data at input byte 3');
  });
});
