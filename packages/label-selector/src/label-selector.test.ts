import { describe, expect, it } from 'vitest';
import {
  isEmptyLabelSelector,
  labelSelectorAsSelector,
  labelSelectorText,
  LabelSelectorError,
  matchesLabelSelector,
  parseLabelSelector,
  selectorFromLabels,
  selectorText,
} from './index.js';

describe('parseLabelSelector (string form)', () => {
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
    ['app=web,tier in (front,back),!missing', true],
    ['replicas>2', true],
    ['replicas<2', false],
    ['missing<2', false],
  ])('%s → %s', (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('keeps apimachinery operator names and lists the equalities a cache can narrow by', () => {
    const selector = parseLabelSelector('a=b, c in (d), e==f, g!=h, !i, j');
    expect(selector.requirements.map((requirement) => requirement.operator)).toEqual(['=', 'in', '==', '!=', '!', 'exists']);
    expect(selector.equalities).toEqual([
      ['a', 'b'],
      ['e', 'f'],
    ]);
    expect(parseLabelSelector(undefined).matches(undefined)).toBe(true);
  });

  it.each([
    ['a in (b', 'found unbalanced parentheses'],
    ['a b', "found 'a b', expected: in, notin, =, ==, !=, gt, lt"],
    ['=b', "found '=b'"],
    ['a=b=c', "found 'a=b=c'"],
    ['a in (in valid)', 'Invalid value: "in valid"'],
    ['Bad Key=1', "found 'Bad Key=1'"],
    ['bad_=1', 'Invalid value: "bad_": name part must consist of'],
    ['a>x', "for 'Gt', 'Lt' operators, the value must be an integer"],
    ['a=b,', "found '', expected: !, identifier, or 'end of string'"],
  ])('rejects %j: %s', (selector, message) => {
    let caught: unknown;
    try {
      parseLabelSelector(selector);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LabelSelectorError);
    expect((caught as Error).message).toMatch(/^unable to parse requirement: /);
    expect((caught as Error).message).toContain(message);
  });

  it('builds a selector from a label set', () => {
    expect(selectorFromLabels({ x: '1' }).matches({ x: '1', y: '2' })).toBe(true);
    expect(selectorFromLabels({ x: '1' }).matches(undefined)).toBe(false);
    expect(selectorFromLabels({}).matches(undefined)).toBe(true);
  });
});

describe('metav1.LabelSelector', () => {
  const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }, { key: 'canary', operator: 'DoesNotExist' }] };

  it('applies matchLabels and matchExpressions (ANDed)', () => {
    expect(matchesLabelSelector(selector, { app: 'web', tier: 'front' })).toBe(true);
    expect(matchesLabelSelector(selector, { app: 'web', tier: 'front', canary: 'yes' })).toBe(false);
    expect(matchesLabelSelector(selector, { app: 'db', tier: 'front' })).toBe(false);
    expect(matchesLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['back'] }, { key: 'app', operator: 'Exists' }] }, { app: '' })).toBe(true);
  });

  it('selects everything with {} and nothing without a selector', () => {
    expect(matchesLabelSelector({}, undefined)).toBe(true);
    expect(matchesLabelSelector(null, { a: 'b' })).toBe(false);
    expect(matchesLabelSelector(undefined, {})).toBe(false);
    expect(isEmptyLabelSelector(undefined)).toBe(true);
    expect(isEmptyLabelSelector({ matchLabels: {}, matchExpressions: [] })).toBe(true);
    expect(isEmptyLabelSelector(selector)).toBe(false);
  });

  it.each([
    [{ matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] }, '"Equals" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, "values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] }, 'values set must be empty'],
    [{ matchLabels: { 'bad key': 'x' } }, 'not a valid label key'],
    [{ matchLabels: { a: 'bad value' } }, 'not a valid label value'],
    [{ matchExpressions: 'a' }, 'matchExpressions must be a list'],
    ['a=b', 'must be an object'],
  ])('rejects %j as LabelSelectorAsSelector does, and matches nothing with it', (invalid, message) => {
    expect(() => labelSelectorAsSelector(invalid)).toThrow(message);
    expect(matchesLabelSelector(invalid as never, { a: 'b' })).toBe(false);
  });

  it('writes the string form sorted by key, which parses back to the same selector', () => {
    const object = { matchLabels: { tier: 'front', app: 'web' }, matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['b', 'a'] }, { key: 'canary', operator: 'DoesNotExist' }, { key: 'env', operator: 'Exists' }] };
    const text = labelSelectorText(object);
    expect(text).toBe('app=web,!canary,env,tier=front,zone notin (a,b)');
    expect(parseLabelSelector(text).matches({ app: 'web', tier: 'front', env: 'x', zone: 'c' })).toBe(true);
    expect(parseLabelSelector(text).matches({ app: 'web', tier: 'front', env: 'x', zone: 'a' })).toBe(false);
    expect(selectorText(parseLabelSelector(text))).toBe(text);
    expect(labelSelectorText({ matchExpressions: [{ key: 'k', operator: 'In', values: ['y', 'x'] }] })).toBe('k in (x,y)');
    expect(labelSelectorText(undefined)).toBe('');
    expect(selectorText(parseLabelSelector('n>1,m<2,a==b'))).toBe('a==b,m<2,n>1');
  });
});
