import { describe, expect, it } from 'vitest';
import { describeBlob, extractMetaKeys } from './meta.js';

describe('extractMetaKeys', () => {
  it('finds schema, package and name case-insensitively', () => {
    expect(extractMetaKeys({ SCHEMA: 'olm.bundle', Package: 'p', nAmE: 'n', other: 1 })).toEqual({ schema: 'olm.bundle', package: 'p', name: 'n' });
    expect(extractMetaKeys({ schema: 'x' })).toEqual({ schema: 'x', package: '', name: '' });
  });

  it('rejects keys that fold to the same meta key, and non-string values, with upstream messages', () => {
    expect(() => extractMetaKeys({ package: 'a', Package: 'b', schema: 's' })).toThrow('duplicate keys for key "package": [Package package]');
    expect(() => extractMetaKeys({ schema: true })).toThrow('expected value for key "schema" to be a string, got bool');
    expect(() => extractMetaKeys({ schema: 's', name: null })).toThrow('expected value for key "name" to be a string, got <nil>');
  });

  it('describes a blob as compact sorted JSON, capped', () => {
    expect(describeBlob({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
    expect(describeBlob({ a: 'x'.repeat(600) }, 20)).toBe('{"a":"xxxxxxxxxxxxxx…');
  });
});
