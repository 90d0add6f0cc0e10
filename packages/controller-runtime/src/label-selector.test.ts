import { hasErrorCode } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { RuntimeErrorCodes } from './errors.js';
import { parseLabelSelector } from './label-selector.js';

describe('parseLabelSelector', () => {
  it('parses the string form (see @olm/label-selector for the grammar)', () => {
    const selector = parseLabelSelector('app=web,tier in (front,back),!missing');
    expect(selector.matches({ app: 'web', tier: 'front' })).toBe(true);
    expect(selector.equalities).toEqual([['app', 'web']]);
  });

  it('rejects a malformed requirement with a stable code and the selector in the message', () => {
    let error: unknown;
    try {
      parseLabelSelector('a=b,in (x)');
    } catch (caught) {
      error = caught;
    }
    expect(hasErrorCode(error, RuntimeErrorCodes.invalidArgument)).toBe(true);
    expect((error as Error).message).toContain('"a=b,in (x)"');
    expect((error as Error).message).toContain('unable to parse requirement');
  });
});
