import { describe, expect, it } from 'vitest';
import { StatusError } from './errors.js';
import { parseLabelSelector } from './label-selector.js';

describe('parseLabelSelector (the labelSelector parameter)', () => {
  it('parses with @olm/label-selector', () => {
    expect(parseLabelSelector('app=web,tier in (front)').matches({ app: 'web', tier: 'front' })).toBe(true);
    expect(parseLabelSelector(null).requirements).toEqual([]);
  });

  it.each(['a in (b', 'a b', '=b', 'Bad Key=1', 'a>x'])('rejects %s with 400 BadRequest', (selector) => {
    let caught: unknown;
    try {
      parseLabelSelector(selector);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StatusError);
    expect((caught as StatusError).code).toBe(400);
    expect((caught as StatusError).message).toMatch(/^unable to parse requirement: /);
  });
});
