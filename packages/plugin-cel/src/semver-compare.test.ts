import { describe, expect, it } from 'vitest';
import { semverCompare } from './semver-compare.js';

describe('semverCompare', () => {
  it('compares versions with blang precedence, returning a CEL int', () => {
    expect(semverCompare('1.0.1', '1.0.0')).toBe(1n);
    expect(semverCompare('1.0.0', '1.0.1')).toBe(-1n);
    expect(semverCompare('1.0.0-alpha', '1.0.0')).toBe(-1n);
    expect(semverCompare('1.0.0+build.5', '1.0.0')).toBe(0n);
  });

  it('parses tolerantly: v prefix, short versions, spaces', () => {
    expect(semverCompare('v1.2', '1.2.0')).toBe(0n);
    expect(semverCompare(' 2 ', '1.9.9')).toBe(1n);
  });

  it('prints numbers like Go before parsing', () => {
    expect(semverCompare(1n, '1.0.0')).toBe(0n);
    expect(semverCompare(1.5, '1.5.0')).toBe(0n);
  });

  it('throws on an unparsable argument, with upstream message', () => {
    expect(() => semverCompare('not-a-version', '1.0.0')).toThrow("unable to parse 'not-a-version' to semver format");
    expect(() => semverCompare('1.0.0', { version: '1.0.0' })).toThrow('unable to parse \'{"version":"1.0.0"}\' to semver format');
    expect(() => semverCompare(null, '1.0.0')).toThrow("unable to parse '<nil>' to semver format");
  });
});
