import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { defaultCelLimits, resolveCelLimits } from './limits.js';
import { guardRuleText, longestUnaryChain } from './rule-guard.js';

function rejection(rule: string, limits = defaultCelLimits): unknown {
  try {
    guardRuleText(rule, limits);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('longestUnaryChain', () => {
  it('counts runs of ! and - separated by whitespace or parentheses', () => {
    expect(longestUnaryChain('!!!true')).toBe(3);
    expect(longestUnaryChain('! ! (! true)')).toBe(3);
    expect(longestUnaryChain('- -1 == 1 && !false')).toBe(2);
  });

  it('does not count != or characters inside strings and comments', () => {
    expect(longestUnaryChain('1 != 2')).toBe(0);
    expect(longestUnaryChain('"!!!!!!!!" == \'-----\' // !!!!!!!\n')).toBe(0);
    expect(longestUnaryChain('"""a " !!!! """ == r"\\" && !true')).toBe(1);
  });
});

describe('guardRuleText', () => {
  it('accepts ordinary rules', () => {
    expect(rejection('properties.exists(p, p.type == "certified")')).toBeUndefined();
  });

  it('rejects a rule longer than maxRuleBytes, counting UTF-8 bytes', () => {
    const limits = resolveCelLimits({ maxRuleBytes: 12 });
    expect(rejection('"ééééé"', limits)).toBeUndefined();
    const error = rejection('"éééééé"', limits);
    expect(hasErrorCode(error, 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
    expect((error as Error).message).toContain('14 bytes, more than the maximum of 12');
    expect((error as Error).message).toContain('maxRuleBytes');
  });

  it('rejects a long chain of unary operators before parsing', () => {
    const error = rejection(`${'!'.repeat(10_000)}true`, resolveCelLimits({ maxRuleBytes: 20_000 }));
    expect(hasErrorCode(error, 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
    expect((error as Error).message).toContain('maxUnaryChain');
  });
});
