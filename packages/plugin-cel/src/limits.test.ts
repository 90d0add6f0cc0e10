import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { defaultCelLimits, resolveCelLimits } from './limits.js';

describe('resolveCelLimits', () => {
  it('overrides only the given limits', () => {
    const limits = resolveCelLimits({ maxIterations: 5, maxDepth: undefined });
    expect(limits.maxIterations).toBe(5);
    expect(limits.maxDepth).toBe(defaultCelLimits.maxDepth);
  });

  it('rejects unknown limits and non-positive or fractional values', () => {
    for (const overrides of [{ maxIteration: 5 }, { maxIterations: 0 }, { maxRuleBytes: 1.5 }]) {
      let caught: unknown;
      try {
        resolveCelLimits(overrides as never);
      } catch (error) {
        caught = error;
      }
      expect(hasErrorCode(caught, 'OLM_CEL_INVALID_OPTIONS'), JSON.stringify(overrides)).toBe(true);
    }
  });
});
