import { describe, expect, it } from 'vitest';
import { formatFieldPath, formatValue, jsonTypeOf } from './field-path.js';

describe('field paths and values', () => {
  it('renders paths with dots and bracketed indices', () => {
    expect(formatFieldPath(['spec', 'items', 2, 'name'])).toBe('spec.items[2].name');
    expect(formatFieldPath([0, 'a'])).toBe('[0].a');
    expect(formatFieldPath([])).toBe('');
  });

  it('formats values as Kubernetes prints them', () => {
    expect(formatValue('a"b')).toBe('"a\\"b"');
    expect(formatValue(3)).toBe('3');
    expect(formatValue(false)).toBe('false');
    expect(formatValue(null)).toBe('null');
    expect(formatValue({ a: [1] })).toBe('{"a":[1]}');
  });

  it('names JSON types', () => {
    expect([1, 1.5, 'x', true, null, [], {}].map(jsonTypeOf)).toEqual(['integer', 'number', 'string', 'boolean', 'null', 'array', 'object']);
  });
});
