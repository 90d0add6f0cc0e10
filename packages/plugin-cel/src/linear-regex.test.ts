import { describe, expect, it } from 'vitest';
import { enableLinearRegexEngine, matchesLinear } from './linear-regex.js';

describe('matchesLinear', () => {
  it('is available on this Node', () => {
    expect(enableLinearRegexEngine()).toBe(true);
  });

  it('searches unanchored, like RE2', () => {
    enableLinearRegexEngine();
    expect(matchesLinear('etcdoperator.v0.9.4', 'v0\\.9')).toBe(true);
    expect(matchesLinear('etcdoperator.v0.9.4', '^v0')).toBe(false);
  });

  it('runs patterns that backtrack exponentially elsewhere', () => {
    enableLinearRegexEngine();
    expect(matchesLinear(`${'a'.repeat(5_000)}!`, '^(a+)+$')).toBe(false);
    expect(matchesLinear(`${'0'.repeat(5_000)}!`, '[0-9]*[0-9]*[0-9]*x')).toBe(false);
  });

  it('throws for backreferences, lookaround, invalid patterns and non-strings', () => {
    enableLinearRegexEngine();
    expect(() => matchesLinear('aa', '(a)\\1')).toThrow(/invalid regular expression/);
    expect(() => matchesLinear('ab', 'a(?=b)')).toThrow(/invalid regular expression/);
    expect(() => matchesLinear('a', '(')).toThrow(/invalid regular expression/);
    expect(() => matchesLinear(1n, 'a')).toThrow(/no matching overload/);
  });
});
