import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { RuntimeErrorCodes } from './errors.js';
import { parseLabelSelector, selectorFromLabels } from './label-selector.js';

describe('parseLabelSelector', () => {
  const labels = { app: 'web', tier: 'front', 'olm.owner': 'etcd.v1' };

  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=api', false],
    ['app!=api', true],
    ['missing!=x', true],
    ['tier in (front, back)', true],
    ['tier in (back)', false],
    ['tier notin (back)', true],
    ['tier notin (front,back)', false],
    ['olm.owner', true],
    ['!olm.owner', false],
    ['!missing', true],
    ['app=web,tier in (front,back),!missing', true],
    ['app=web,tier in (back,x),!missing', false],
  ])('%s matches: %s', (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('lists the equality requirements the cache can narrow by', () => {
    expect(parseLabelSelector('a=b, c in (d), e==f').equalities).toEqual([
      ['a', 'b'],
      ['e', 'f'],
    ]);
    expect(selectorFromLabels({ x: '1' }).matches({ x: '1', y: '2' })).toBe(true);
    expect(selectorFromLabels({ x: '1' }).matches(undefined)).toBe(false);
  });

  it('rejects a malformed requirement with a stable code', () => {
    let error: unknown;
    try {
      parseLabelSelector('a=b,in (x)');
    } catch (caught) {
      error = caught;
    }
    expect(hasErrorCode(error, RuntimeErrorCodes.invalidArgument)).toBe(true);
    expect((error as Error).message).toContain('"in (x)"');
  });
});
