import { describe, expect, it } from 'vitest';
import { jsonSize } from './json-size.js';

describe('jsonSize', () => {
  it('is the length of the JSON text for ASCII values', () => {
    for (const value of [null, 0, -12.5, true, 'abc', [], {}, [1, 'two', null], { a: { b: [1, 2, { c: 'd' }] }, e: '' }]) {
      expect(jsonSize(value)).toBe(JSON.stringify(value).length);
    }
  });

  it('counts UTF-8 bytes and stops soon after passing the given bound', () => {
    expect(jsonSize('é')).toBe(4);
    const huge = Array.from({ length: 10_000 }, () => 'x'.repeat(100));
    expect(jsonSize(huge, 1000)).toBeGreaterThan(1000);
    expect(jsonSize(huge, 1000)).toBeLessThan(JSON.stringify(huge).length / 10);
  });
});
