import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { labelSelectorText, matchesLabelSelectorObject, parseLabelSelector } from './label-selector.js';

describe('parseLabelSelector', () => {
  const labels = { app: 'web', tier: 'front', 'example.com/team': 'a', replicas: '3' };

  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['tier in (front,back)', true],
    ['tier in (back)', false],
    ['tier notin (back)', true],
    ['tier notin (front, back)', false],
    ['example.com/team', true],
    ['!example.com/team', false],
    ['!missing', true],
    ['app=web,tier=back', false],
    ['app = web , tier in ( front )', true],
    ['replicas>2', true],
    ['replicas<2', false],
  ])('%s → %s', (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it.each(['a in (b', 'a b', '=b', 'a=b=c', 'a in (in valid)', 'Bad Key=1', 'a>x'])('rejects %s with 400 BadRequest', (selector) => {
    let caught: unknown;
    try {
      parseLabelSelector(selector);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).code).toBe(400);
    expect((caught as ApiError).message).toMatch(/^unable to parse requirement: /);
  });
});

describe('matchesLabelSelectorObject', () => {
  it('applies matchLabels and matchExpressions', () => {
    const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }, { key: 'canary', operator: 'DoesNotExist' }] };
    expect(matchesLabelSelectorObject(selector, { app: 'web', tier: 'front' })).toBe(true);
    expect(matchesLabelSelectorObject(selector, { app: 'web', tier: 'front', canary: 'yes' })).toBe(false);
    expect(matchesLabelSelectorObject(selector, { app: 'db', tier: 'front' })).toBe(false);
  });
});

describe('labelSelectorText', () => {
  it('writes matchLabels and matchExpressions as a selector string sorted by key, which parses back', () => {
    const selector = { matchLabels: { tier: 'front', app: 'web' }, matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['b', 'a'] }, { key: 'canary', operator: 'DoesNotExist' }, { key: 'env', operator: 'Exists' }] };
    const text = labelSelectorText(selector);
    expect(text).toBe('app=web,!canary,env,tier=front,zone notin (a,b)');
    expect(parseLabelSelector(text).matches({ app: 'web', tier: 'front', env: 'x', zone: 'c' })).toBe(true);
    expect(parseLabelSelector(text).matches({ app: 'web', tier: 'front', env: 'x', zone: 'a' })).toBe(false);
    expect(labelSelectorText({ matchExpressions: [{ key: 'k', operator: 'In', values: ['y', 'x'] }] })).toBe('k in (x,y)');
    expect(labelSelectorText(undefined)).toBe('');
  });
});
