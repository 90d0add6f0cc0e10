import { hasErrorCode, type Property } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { createCelRuleCompiler } from './cel-rule-compiler.js';

const digits = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]';

/** 8 nested all() over 10 elements: 10^8 iterations, about 2 s unbounded in this library. */
function comprehensionBomb(levels: number): string {
  const names = Array.from({ length: levels }, (_, index) => `v${index}`);
  let body = `${names.join(' + ')} >= 0`;
  for (const name of [...names].reverse()) body = `${digits}.all(${name}, ${body})`;
  return body;
}

function limitOf(error: unknown): unknown {
  expect(hasErrorCode(error, 'OLM_CEL_LIMIT_EXCEEDED')).toBe(true);
  return (error as { limit?: unknown }).limit;
}

const properties: Property[] = [{ type: 'olm.package', value: { packageName: 'etcd', version: '1.0.0' } }];

describe('evaluation budget', () => {
  it('stops the comprehension bomb at maxIterations and answers false', () => {
    // A generous time limit, so only the (deterministic) iteration count can stop it, however loaded the machine.
    const compiler = createCelRuleCompiler({ limits: { maxComprehensionNesting: 8, maxEvaluationMillis: 600_000 } });
    const rule = compiler.compile(comprehensionBomb(8));
    const result = rule.evaluate(properties);
    expect(result.matched).toBe(false);
    expect(limitOf(result.error)).toBe('maxIterations');
  });

  it('lets the same rule succeed within the budget and starts each evaluation afresh', () => {
    const compiler = createCelRuleCompiler({ limits: { maxIterations: 1_200 } });
    const inside = compiler.compile(comprehensionBomb(3)); // 1,110 steps
    expect(inside.evaluate(properties).matched).toBe(true);
    expect(inside.evaluate([...properties]).matched).toBe(true); // a new array: evaluated again, with a fresh budget
    const outside = createCelRuleCompiler({ limits: { maxIterations: 1_000 } }).compile(comprehensionBomb(3));
    expect(limitOf(outside.evaluate(properties).error)).toBe('maxIterations');
  });

  it('counts iterations over properties per bundle', () => {
    const compiler = createCelRuleCompiler({ limits: { maxIterations: 50 } });
    const rule = compiler.compile('properties.exists(p, properties.exists(q, p.type == q.type && p.type == "last"))');
    const few = Array.from({ length: 6 }, (_, index) => ({ type: index === 5 ? 'last' : `t${index}`, value: {} }));
    const many = Array.from({ length: 20 }, (_, index) => ({ type: index === 19 ? 'last' : `t${index}`, value: {} }));
    expect(rule.evaluate(few).matched).toBe(true);
    const result = rule.evaluate(many);
    expect(result.matched).toBe(false);
    expect(limitOf(result.error)).toBe('maxIterations');
  });

  it('stops an evaluation that runs longer than maxEvaluationMillis', () => {
    const compiler = createCelRuleCompiler({ limits: { maxEvaluationMillis: 1, maxIterations: 100_000_000, maxComprehensionNesting: 8 } });
    const result = compiler.compile(comprehensionBomb(8)).evaluate(properties);
    expect(result.matched).toBe(false);
    expect(limitOf(result.error)).toBe('maxEvaluationMillis');
  });

  it('stops values doubling through chained map() at maxValueLength', () => {
    const doubling = `["ab"]${'.map(s, s + s)'.repeat(12)}.exists(s, size(s) > 0)`;
    const compiler = createCelRuleCompiler({ limits: { maxValueLength: 1_000 } });
    const result = compiler.compile(doubling).evaluate(properties);
    expect(result.matched).toBe(false);
    expect(limitOf(result.error)).toBe('maxValueLength');
    expect(createCelRuleCompiler({ limits: { maxValueLength: 100_000 } }).compile(doubling).evaluate(properties).matched).toBe(true);
  });

  it('refuses matches() on a string longer than maxMatchSubjectLength', () => {
    const compiler = createCelRuleCompiler({ limits: { maxMatchSubjectLength: 8 } });
    const rule = compiler.compile('properties.exists(p, p.type.matches("^olm"))');
    expect(rule.evaluate([{ type: 'olm.gvk', value: {} }]).matched).toBe(true);
    const result = rule.evaluate([{ type: 'olm.package', value: {} }]);
    expect(result.matched).toBe(false);
    expect(limitOf(result.error)).toBe('maxMatchSubjectLength');
  });

  it('counts the steps of every comprehension macro, over lists and maps', () => {
    const compiler = createCelRuleCompiler({ limits: { maxIterations: 9 } });
    const ten = `${digits}`;
    const tenKeys = `{${Array.from({ length: 10 }, (_, index) => `"k${index}": ${index}`).join(', ')}}`;
    for (const rule of [
      `${ten}.all(x, x >= 0)`,
      `${ten}.exists(x, x == 9)`,
      `${ten}.exists_one(x, x == 3)`,
      `size(${ten}.map(x, x * 2)) == 10`,
      `size(${ten}.map(x, x > 4, x)) == 5`,
      `size(${ten}.filter(x, x > 4)) == 5`,
      `${tenKeys}.all(k, k != "")`,
    ]) {
      const result = compiler.compile(rule).evaluate(properties);
      expect(limitOf(result.error), rule).toBe('maxIterations');
      expect(createCelRuleCompiler({ limits: { maxIterations: 10 } }).compile(rule).evaluate(properties).matched, rule).toBe(true);
    }
  });

  it('disables a rule after maxLimitHits bundles hit a limit, keeping answers already given', () => {
    const compiler = createCelRuleCompiler({ limits: { maxIterations: 5, maxLimitHits: 2 } });
    const rule = compiler.compile('properties.exists(p, p.type == "wanted")');
    const small = [{ type: 'wanted', value: {} }];
    const big = (index: number) => Array.from({ length: 10 }, (_, item) => ({ type: `t${index}-${item}`, value: {} }));
    expect(rule.evaluate(small).matched).toBe(true);
    expect(limitOf(rule.evaluate(big(1)).error)).toBe('maxIterations');
    expect(limitOf(rule.evaluate(big(2)).error)).toBe('maxIterations');
    const after = rule.evaluate([{ type: 'wanted', value: {} }]);
    expect(after.matched).toBe(false);
    expect(limitOf(after.error)).toBe('maxLimitHits');
    expect(rule.evaluate(small).matched).toBe(true);
  });
});
