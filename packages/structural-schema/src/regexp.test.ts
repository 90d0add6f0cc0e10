import { describe, expect, it } from 'vitest';
import { compileSchema } from './compile-schema.js';
import { toJsRegExp } from './regexp.js';

describe('toJsRegExp (RE2 patterns as Kubernetes accepts them)', () => {
  it('keeps ordinary patterns in unicode mode', () => {
    const regexp = toJsRegExp('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$');
    expect(regexp.flags).toBe('u');
    expect(regexp.test('my-name')).toBe(true);
    expect(regexp.test('-bad')).toBe(false);
  });

  it('turns leading inline flags into RegExp flags', () => {
    const regexp = toJsRegExp('(?i)^(true|false)$');
    expect(regexp.test('TRUE')).toBe(true);
    expect(regexp.test('yes')).toBe(false);
    expect(toJsRegExp('(?is)^a.b$').test('A\nB')).toBe(true);
  });

  it('maps \\A and \\z to anchors, leaving escaped backslashes alone', () => {
    expect(toJsRegExp('\\Aabc\\z').test('abc')).toBe(true);
    expect(toJsRegExp('\\Aabc\\z').test('xabc')).toBe(false);
    expect(toJsRegExp('^a\\\\A$').test('a\\A')).toBe(true);
  });

  it('accepts escaped punctuation that unicode mode rejects', () => {
    const regexp = toJsRegExp('^[a-z]+\\:[0-9]+$');
    expect(regexp.test('port:80')).toBe(true);
    expect(regexp.test('port80')).toBe(false);
  });

  it('throws for patterns no engine accepts', () => {
    expect(() => toJsRegExp('([a-z')).toThrow(SyntaxError);
  });

  it('is the engine compiled schemas use', () => {
    const compiled = compileSchema({ type: 'object', properties: { spec: { type: 'object', properties: { flag: { type: 'string', pattern: '(?i)^on|off$' }, id: { type: 'string', pattern: '^x\\-[0-9]+$' } } } } });
    expect(compiled.validate({ spec: { flag: 'ON', id: 'x-1' } })).toEqual([]);
    expect(compiled.validate({ spec: { flag: 'maybe', id: 'y-1' } }).map((error) => error.field)).toEqual(['spec.flag', 'spec.id']);
  });
});
