import { type ConstraintCompileContext, hasErrorCode, type Property } from '@olm/core';
import { describe, expect, it, vi } from 'vitest';
import { createCelConstraintEvaluator, describeCelPredicate } from './cel-constraint-evaluator.js';

const context: ConstraintCompileContext = {
  compile: () => {
    throw new Error('cel constraints do not nest');
  },
};

const certified: Property[] = [
  { type: 'olm.package', value: { packageName: 'etcd', version: '0.9.4' } },
  { type: 'certified', value: true },
];

describe('createCelConstraintEvaluator', () => {
  it('is the cel kind and compiles a predicate over bundle properties', () => {
    const evaluator = createCelConstraintEvaluator();
    expect(evaluator.kind).toBe('cel');
    const predicate = evaluator.compile({ rule: 'properties.exists(p, p.type == "certified")' }, context);
    expect(predicate.test({ properties: certified })).toBe(true);
    expect(predicate.test({ properties: certified.slice(0, 1) })).toBe(false);
  });

  it('describes the predicate as upstream: rule and failure message quoted like Go %q', () => {
    const predicate = createCelConstraintEvaluator().compile({ rule: 'properties.exists(p, p.type == "certified")' }, context);
    expect(predicate.describe()).toBe('with constraint: "properties.exists(p, p.type == \\"certified\\")" and message: ""');
    const withMessage = createCelConstraintEvaluator().compile(
      { rule: 'true' },
      { ...context, failureMessage: 'require to have "certified"' },
    );
    expect(withMessage.describe()).toBe(describeCelPredicate('true', 'require to have "certified"'));
    expect(withMessage.describe()).toBe('with constraint: "true" and message: "require to have \\"certified\\""');
  });

  it('never throws from test: errors and limits are false and reported to onEvaluationError', () => {
    const onEvaluationError = vi.fn();
    const evaluator = createCelConstraintEvaluator({ onEvaluationError, limits: { maxIterations: 3 } });
    const failing = evaluator.compile({ rule: 'properties.all(p, semver_compare(p.value, "1.0.0") == 0)' }, context);
    expect(failing.test({ properties: certified })).toBe(false);
    const bounded = evaluator.compile({ rule: 'properties.exists(p, p.type == "zzz")' }, context);
    expect(bounded.test({ properties: [...certified, ...certified] })).toBe(false);
    expect(onEvaluationError).toHaveBeenCalledTimes(2);
    expect(hasErrorCode(onEvaluationError.mock.calls[1]?.[0], 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
    expect(onEvaluationError.mock.calls[1]?.[1]).toBe('properties.exists(p, p.type == "zzz")');
  });

  it('ignores a throwing onEvaluationError', () => {
    const evaluator = createCelConstraintEvaluator({
      onEvaluationError: () => {
        throw new Error('logger down');
      },
    });
    const predicate = evaluator.compile({ rule: 'properties.all(p, p.value.x == 1)' }, context);
    expect(predicate.test({ properties: certified })).toBe(false);
  });

  it("spends each evaluation's cost from the resolution's budget, the same again when the answer is remembered", () => {
    const spent: number[] = [];
    const budget = { spend: (units: number) => void spent.push(units) };
    const evaluator = createCelConstraintEvaluator();
    const loop = evaluator.compile({ rule: '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].exists(x, x * 2 == 21)' }, context);
    const shortLoop = evaluator.compile({ rule: '[1, 2].exists(x, x * 2 == 21)' }, context);
    expect(loop.test({ properties: certified, budget })).toBe(false);
    expect(loop.test({ properties: certified, budget })).toBe(false);
    expect(shortLoop.test({ properties: certified, budget })).toBe(false);
    const [first, remembered, short] = spent;
    expect(remembered).toBe(first);
    // Ten loop steps cost more than two: the steps, not the rule's size, dominate.
    expect(first! - short!).toBeGreaterThan(8 * 3);
    // matches() also pays for the length of what it matches.
    const matching = evaluator.compile({ rule: 'properties.exists(p, p.type.matches("^z"))' }, context);
    spent.length = 0;
    matching.test({ properties: [{ type: 'a'.repeat(1_000), value: {} }], budget });
    matching.test({ properties: [{ type: 'a', value: {} }], budget });
    expect(spent[0]! - spent[1]!).toBeGreaterThanOrEqual(1_000);
  });

  it('lets the budget error out of test: running out ends the resolution', () => {
    const exhausted = Object.assign(new Error('budget used up'), { code: 'OLM_RESOLVER_BUDGET_EXHAUSTED' });
    const predicate = createCelConstraintEvaluator().compile({ rule: 'properties.exists(p, p.type == "certified")' }, context);
    const budget = {
      spend: () => {
        throw exhausted;
      },
    };
    expect(() => predicate.test({ properties: certified, budget })).toThrow(exhausted);
  });

  it('rejects invalid values and rules at compile time with stable codes', () => {
    const evaluator = createCelConstraintEvaluator();
    const codeOf = (value: unknown): string | undefined => {
      try {
        evaluator.compile(value, context);
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return undefined;
    };
    expect(codeOf({ rule: 'true', extra: 1 })).toBe('OLM_CEL_INVALID_CONSTRAINT');
    expect(codeOf({ rule: '' })).toBe('OLM_CEL_INVALID_CONSTRAINT');
    expect(codeOf({ rule: '1 + 1' })).toBe('OLM_CEL_INVALID_RULE');
    expect(codeOf({ rule: `${'!'.repeat(100)}true` })).toBe('OLM_CEL_LIMIT_EXCEEDED');
  });
});
