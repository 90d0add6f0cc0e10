import { type ConstraintCompileContext, hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { createCelConstraintEvaluator } from '../src/index.js';

// Hostile rules must be refused when compiled or answer false quickly; they never stall resolution.
const context: ConstraintCompileContext = {
  compile: () => {
    throw new Error('not used');
  },
};

function rejectionOf(rule: string, options = {}): Error {
  try {
    createCelConstraintEvaluator(options).compile({ rule }, context);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the rule to be rejected');
}

const digits = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]';
function comprehensionBomb(levels: number): string {
  const names = Array.from({ length: levels }, (_, index) => `v${index}`);
  let body = `${names.join(' + ')} >= 0`;
  for (const name of [...names].reverse()) body = `${digits}.all(${name}, ${body})`;
  return body;
}

describe('hostile rules with the default limits', () => {
  it('refuses the 8-deep comprehension bomb at compile time', () => {
    const error = rejectionOf(comprehensionBomb(8));
    expect(hasErrorCode(error, 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
    expect(error.message).toContain('maxComprehensionNesting');
  });

  it('answers false for the bomb when nesting is allowed, stopped by the iteration budget', () => {
    const predicate = createCelConstraintEvaluator({ limits: { maxComprehensionNesting: 8 } }).compile(
      { rule: comprehensionBomb(8) },
      context,
    );
    expect(predicate.test({ properties: [] })).toBe(false);
  });

  it('refuses 10,000 ! operators (a stack overflow in the library) and a 5,000 long chain', () => {
    expect(hasErrorCode(rejectionOf(`${'!'.repeat(10_000)}true`), 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
    const chain = rejectionOf(`${'!'.repeat(5_000)}true`);
    expect(chain.message).toContain('chains 5000 unary operators');
  });

  it('turns a parser stack overflow into OLM_CEL_LIMIT_EXCEEDED when the guards are raised', () => {
    const error = rejectionOf(`${'!'.repeat(50_000)}true`, { limits: { maxRuleBytes: 100_000, maxUnaryChain: 100_000 } });
    expect(hasErrorCode(error, 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
  });

  it('refuses a huge rule before parsing', () => {
    const huge = `properties.exists(p, p.type == "${'x'.repeat(200_000)}")`;
    const error = rejectionOf(huge);
    expect(hasErrorCode(error, 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
    expect(error.message).toContain('maxRuleBytes');
  });

  it('refuses deep parentheses and huge literals through the parser limits', () => {
    expect(rejectionOf(`${'('.repeat(1_000)}true${')'.repeat(1_000)}`).message).toContain('maxDepth');
    const list = `size([${Array.from({ length: 300 }, (_, index) => index).join(', ')}]) > 0`;
    expect(rejectionOf(list).message).toContain('maxListElements');
  });

  it('answers false for a catastrophic-backtracking regular expression on hostile input', () => {
    const predicate = createCelConstraintEvaluator().compile({ rule: 'properties.exists(p, p.type.matches("(a|aa)+$"))' }, context);
    expect(predicate.test({ properties: [{ type: `${'a'.repeat(5_000)}!`, value: {} }] })).toBe(false);
    expect(predicate.test({ properties: [{ type: 'aaa', value: {} }] })).toBe(true);
  });

  it('answers false, in linear time, for the exponential pattern of a CRD on hostile input', () => {
    const predicate = createCelConstraintEvaluator().compile({ rule: 'properties.exists(p, p.type.matches("^(a+)+$"))' }, context);
    expect(predicate.test({ properties: [{ type: `${'a'.repeat(30)}!`, value: {} }] })).toBe(false);
    expect(predicate.test({ properties: [{ type: `${'a'.repeat(9_999)}!`, value: {} }] })).toBe(false);
    expect(predicate.test({ properties: [{ type: 'a'.repeat(9_999), value: {} }] })).toBe(true);
  });
});
