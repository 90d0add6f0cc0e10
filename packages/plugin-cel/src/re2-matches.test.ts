import { describe, expect, it } from 'vitest';
import { matchesRe2 } from './re2-matches.js';

describe('matchesRe2', () => {
  it('searches unanchored, like cel-go', () => {
    expect(matchesRe2('etcdoperator.v0.9.4', 'v0\\.9')).toBe(true);
    expect(matchesRe2('etcdoperator.v0.9.4', '^v0')).toBe(false);
  });

  it('accepts RE2 syntax JavaScript lacks', () => {
    expect(matchesRe2('Certified', '(?i)^certified$')).toBe(true);
    expect(matchesRe2('héllo', '^\\pL+$')).toBe(true);
    expect(matchesRe2('abc', '^[[:alpha:]]+\\z')).toBe(true);
  });

  it('runs patterns that backtrack exponentially in JavaScript', () => {
    expect(matchesRe2(`${'a'.repeat(5_000)}!`, '^(a+)+$')).toBe(false);
    expect(matchesRe2(`${'0'.repeat(5_000)}!`, '[0-9]*[0-9]*[0-9]*x')).toBe(false);
  });

  it("throws Go's message for lookaround, backreferences and invalid patterns, and for non-strings", () => {
    expect(() => matchesRe2('ab', 'a(?=b)')).toThrow('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    expect(() => matchesRe2('aa', '(a)\\1')).toThrow('error parsing regexp: invalid escape sequence: `\\1`');
    expect(() => matchesRe2('a', '(')).toThrow('error parsing regexp: missing closing ): `(`');
    expect(() => matchesRe2(1n, 'a')).toThrow(/no matching overload/);
  });
});
