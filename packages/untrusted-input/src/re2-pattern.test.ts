import { describe, expect, it } from 'vitest';
import { compileRe2Pattern, PATTERN_INVALID, PatternSyntaxError } from './re2-pattern.js';

const refusal = (pattern: string): PatternSyntaxError => {
  try {
    compileRe2Pattern(pattern);
  } catch (error) {
    if (error instanceof PatternSyntaxError) return error;
    throw error;
  }
  throw new Error(`${pattern} was accepted`);
};

describe('compileRe2Pattern', () => {
  it('searches unanchored, like Go MatchString', () => {
    expect(compileRe2Pattern('v0\\.9').test('etcdoperator.v0.9.4')).toBe(true);
    expect(compileRe2Pattern('^v0').test('etcdoperator.v0.9.4')).toBe(false);
    expect(compileRe2Pattern('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$').test('my-name')).toBe(true);
  });

  it('accepts Go-only syntax: inline flags, Unicode classes, POSIX classes, \\A \\z, \\Q…\\E, escaped punctuation', () => {
    expect(compileRe2Pattern('(?i)^(true|false)$').test('TRUE')).toBe(true);
    expect(compileRe2Pattern('^(?i:on)|off$').test('ON')).toBe(true);
    expect(compileRe2Pattern('^\\pL+$').test('héllo')).toBe(true);
    expect(compileRe2Pattern('^\\pL+$').test('h3llo')).toBe(false);
    expect(compileRe2Pattern('^\\p{Greek}$').test('λ')).toBe(true);
    expect(compileRe2Pattern('^[[:alpha:]]+$').test('abc')).toBe(true);
    expect(compileRe2Pattern('^[[:alpha:]]+$').test('ab1')).toBe(false);
    expect(compileRe2Pattern('\\Aabc\\z').test('abc')).toBe(true);
    expect(compileRe2Pattern('\\Aabc\\z').test('abc\n')).toBe(false);
    expect(compileRe2Pattern('^\\Q*+\\E$').test('*+')).toBe(true);
    expect(compileRe2Pattern('^[a-z]+\\:[0-9]+$').test('port:80')).toBe(true);
    expect(compileRe2Pattern('(?s)^a.b$').test('a\nb')).toBe(true);
    expect(compileRe2Pattern('^(?P<name>x)(?<other>y)$').test('xy')).toBe(true);
  });

  it('keeps Go semantics where JavaScript differs: $ is the end of text only, . is a code point', () => {
    expect(compileRe2Pattern('a$').test('a\n')).toBe(false);
    expect(compileRe2Pattern('^.$').test('😀')).toBe(true);
  });

  it('refuses what Go refuses, with Go\'s message: lookaround, backreferences, \\Z, possessive quantifiers, huge repeats', () => {
    expect(refusal('a(?=b)').message).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    expect(refusal('(?!a)').message).toMatch(/^error parsing regexp: invalid or unsupported Perl syntax/);
    expect(refusal('(?<=a)b').message).toMatch(/^error parsing regexp: invalid named capture/);
    expect(refusal('(a)\\1').message).toBe('error parsing regexp: invalid escape sequence: `\\1`');
    expect(refusal('abc\\Z').message).toBe('error parsing regexp: invalid escape sequence: `\\Z`');
    expect(refusal('a++').message).toBe('error parsing regexp: invalid nested repetition operator: `++`');
    expect(refusal('a{1001}').message).toBe('error parsing regexp: invalid repeat count: `{1001}`');
    expect(refusal('((a{100}){100}){100}').message).toMatch(/^error parsing regexp: invalid repeat count/);
    expect(refusal('([a-z').message).toBe('error parsing regexp: missing closing ]: `[a-z`');
  });

  it('gives refusals a stable code and the pattern, every time it is asked', () => {
    const first = refusal('(?=x)');
    expect(first.code).toBe(PATTERN_INVALID);
    expect(first.pattern).toBe('(?=x)');
    expect(refusal('(?=x)').message).toBe(first.message);
  });

  it('matches patterns that backtrack exponentially in JavaScript, on long subjects', () => {
    expect(compileRe2Pattern('^(a+)+$').test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(compileRe2Pattern('^(a|aa)+$').test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(compileRe2Pattern('[0-9]*[0-9]*[0-9]*x').test(`${'0'.repeat(100_000)}!`)).toBe(false);
    expect(compileRe2Pattern('^(a+)+$').test('a'.repeat(100_000))).toBe(true);
  });
});
