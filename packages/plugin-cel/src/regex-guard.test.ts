import { describe, expect, it } from 'vitest';
import { countUnboundedQuantifiers, findUnsafeRegexConstruct } from './regex-guard.js';

describe('findUnsafeRegexConstruct', () => {
  it('accepts ordinary patterns', () => {
    for (const pattern of ['^v?[0-9]+\\.[0-9]+\\.[0-9]+$', '^(foo|bar)$', 'a+b*c', '(ab)+', '[(+*)]+', '(a?)?', '^[a-z]([-a-z0-9]*[a-z0-9])?$']) {
      expect(findUnsafeRegexConstruct(pattern), pattern).toBeUndefined();
    }
  });

  it('rejects nested unbounded quantifiers and repeated alternations', () => {
    expect(findUnsafeRegexConstruct('^(a+)+$')).toBe('repeats a group that repeats itself');
    expect(findUnsafeRegexConstruct('((ab)*c)*')).toBe('repeats a group that repeats itself');
    expect(findUnsafeRegexConstruct('(a|aa)*$')).toBe('repeats a group with alternatives');
    expect(findUnsafeRegexConstruct('(x(a+))+')).toBe('repeats a group that repeats itself');
    expect(findUnsafeRegexConstruct('(a+){2,}')).toBe('repeats a group that repeats itself');
    expect(findUnsafeRegexConstruct('(a+){2,5}')).toBe('repeats a group that repeats itself');
    expect(findUnsafeRegexConstruct('(a{1,3})*$')).toBe('repeats a group that repeats itself');
    expect(findUnsafeRegexConstruct('(a|b){2}c')).toBeUndefined();
    expect(findUnsafeRegexConstruct('(a{1,3}){0,1}')).toBeUndefined();
  });

  it('rejects backreferences and lookaround, which RE2 does not support either', () => {
    expect(findUnsafeRegexConstruct('(a)\\1')).toBe('uses a backreference');
    expect(findUnsafeRegexConstruct('a(?=b)')).toBe('uses lookaround');
    expect(findUnsafeRegexConstruct('(?<!a)b')).toBe('uses lookaround');
  });

  it('counts unbounded quantifiers outside character classes and escapes', () => {
    expect(countUnboundedQuantifiers('^v?[0-9]+\\.[0-9]+\\.[0-9]+$')).toBe(3);
    expect(countUnboundedQuantifiers('a*b{2,}c{1,3}[*+]\\*')).toBe(2);
  });
});
