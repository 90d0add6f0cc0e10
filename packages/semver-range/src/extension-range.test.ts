import { describe, expect, it } from 'vitest';
import { parseExtensionVersionRange } from './extension-range.js';
import { parseRange } from './range.js';
import { parseVersion } from './version.js';

const versions = ['0.0.1', '0.0.3', '0.0.4', '0.1.0', '0.2.3', '0.2.9', '0.3.0', '1.0.0', '1.1.0', '1.1.1', '1.2.0', '1.2.3', '1.2.9', '1.3.0', '2.0.0', '2.3.0', '2.3.5', '2.4.0', '3.0.0', '3.1.0', '5.0.1'];

function matching(range: string, candidates: readonly string[] = versions): string[] {
  const parsed = parseExtensionVersionRange(range);
  return candidates.filter((version) => parsed.test(parseVersion(version)));
}

function rangeError(text: string): { code: string; message: string } {
  try {
    parseExtensionVersionRange(text);
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseExtensionVersionRange (OLM v1, Masterminds/semver v3 constraints)', () => {
  it('pins a bare or = version, with or without a leading v', () => {
    expect(matching('1.2.3')).toEqual(['1.2.3']);
    expect(matching('=1.2.3')).toEqual(['1.2.3']);
    expect(matching('v1.2.3')).toEqual(['1.2.3']);
  });

  it('compares with !=, >, >=, =>, <, <=, =<', () => {
    expect(matching('!=1.2.3', ['1.2.0', '1.2.3', '1.3.0'])).toEqual(['1.2.0', '1.3.0']);
    expect(matching('>1.2.3', ['1.2.3', '1.2.9'])).toEqual(['1.2.9']);
    expect(matching('>=1.2.3', ['1.2.0', '1.2.3', '2.0.0'])).toEqual(['1.2.3', '2.0.0']);
    expect(matching('=>1.2.3', ['1.2.0', '1.2.3'])).toEqual(['1.2.3']);
    expect(matching('<1.2.3', ['1.2.0', '1.2.3'])).toEqual(['1.2.0']);
    expect(matching('<=1.2.3', ['1.2.3', '1.2.9'])).toEqual(['1.2.3']);
    expect(matching('=<1.2.3', ['1.2.3', '1.2.9'])).toEqual(['1.2.3']);
  });

  it('expands x-ranges and missing parts: 1.2.x, 1.2.X, 1.2.*, >= 1.2.x, <= 2.x, x', () => {
    expect(matching('1.1.x')).toEqual(['1.1.0', '1.1.1']);
    expect(matching('1.2.X')).toEqual(['1.2.0', '1.2.3', '1.2.9']);
    expect(matching('1.2.*')).toEqual(['1.2.0', '1.2.3', '1.2.9']);
    expect(matching('1.2')).toEqual(['1.2.0', '1.2.3', '1.2.9']);
    expect(matching('>= 1.2.x', ['1.1.1', '1.2.0', '5.0.1'])).toEqual(['1.2.0', '5.0.1']);
    expect(matching('<= 2.x', ['2.4.0', '3.0.0'])).toEqual(['2.4.0']);
    expect(matching('< 2.x', ['1.3.0', '2.0.0'])).toEqual(['1.3.0']);
    expect(matching('> 1.x', ['1.3.0', '2.0.0'])).toEqual(['2.0.0']);
    expect(matching('> 1.2', ['1.2.9', '1.3.0'])).toEqual(['1.3.0']);
    expect(matching('!= 1.2.x', ['1.1.1', '1.2.3', '1.3.0'])).toEqual(['1.1.1', '1.3.0']);
    expect(matching('x')).toEqual(versions);
    expect(matching('*')).toEqual(versions);
  });

  it('reads ~ (and ~>) as patch ranges', () => {
    expect(matching('~1.2.3')).toEqual(['1.2.3', '1.2.9']);
    expect(matching('~>1.2.3')).toEqual(['1.2.3', '1.2.9']);
    expect(matching('~1')).toEqual(['1.0.0', '1.1.0', '1.1.1', '1.2.0', '1.2.3', '1.2.9', '1.3.0']);
    expect(matching('~1.x')).toEqual(matching('~1'));
    expect(matching('~2.3')).toEqual(['2.3.0', '2.3.5']);
    expect(matching('~1.2.x')).toEqual(['1.2.0', '1.2.3', '1.2.9']);
  });

  it('reads ^ as major ranges, minor ranges below 1.0.0 and patch ranges below 0.1.0', () => {
    expect(matching('^1.2.3')).toEqual(['1.2.3', '1.2.9', '1.3.0']);
    expect(matching('^1.2.x')).toEqual(['1.2.0', '1.2.3', '1.2.9', '1.3.0']);
    expect(matching('^2.3')).toEqual(['2.3.0', '2.3.5', '2.4.0']);
    expect(matching('^2.x')).toEqual(['2.0.0', '2.3.0', '2.3.5', '2.4.0']);
    expect(matching('^0.2.3')).toEqual(['0.2.3', '0.2.9']);
    expect(matching('^0.2')).toEqual(['0.2.3', '0.2.9']);
    expect(matching('^0.0.3')).toEqual(['0.0.3']);
    expect(matching('^0.0')).toEqual(['0.0.1', '0.0.3', '0.0.4']);
    expect(matching('^0')).toEqual(['0.0.1', '0.0.3', '0.0.4', '0.1.0', '0.2.3', '0.2.9', '0.3.0']);
  });

  it('rewrites hyphen ranges to >= and <=', () => {
    expect(matching('1.0 - 2.0')).toEqual(['1.0.0', '1.1.0', '1.1.1', '1.2.0', '1.2.3', '1.2.9', '1.3.0', '2.0.0']);
    expect(matching('1.1.1 - 1.2.3')).toEqual(['1.1.1', '1.2.0', '1.2.3']);
  });

  it('ANDs comparisons separated by , or spaces and ORs alternatives separated by ||', () => {
    expect(matching('>=1.2.3, <2.0.0 || >3.0.0')).toEqual(['1.2.3', '1.2.9', '1.3.0', '3.1.0', '5.0.1']);
    expect(matching('>=1.2.3 <2.0.0')).toEqual(['1.2.3', '1.2.9', '1.3.0']);
    expect(matching('^0 || ^3 || ^5')).toEqual(['0.0.1', '0.0.3', '0.0.4', '0.1.0', '0.2.3', '0.2.9', '0.3.0', '3.0.0', '3.1.0', '5.0.1']);
  });

  it('matches a prerelease only in an alternative that names a prerelease (unlike blang)', () => {
    const candidates = ['1.0.0-rc.1', '1.0.0', '1.1.0-alpha'];
    expect(matching('<2.0.0', candidates)).toEqual(['1.0.0']);
    expect(parseRange('<2.0.0').test(parseVersion('1.0.0-rc.1'))).toBe(true);
    expect(matching('>=1.0.0-rc.0, <2.0.0', candidates)).toEqual(candidates);
    expect(matching('>=1.0.0-rc.0 || <2.0.0', candidates)).toEqual(candidates);
    expect(matching('1.1.0 || >=1.0.0-0 <1.0.1', ['1.0.0-rc.1', '1.1.0-alpha'])).toEqual(['1.0.0-rc.1']);
  });

  it('ignores build metadata when comparing', () => {
    expect(matching('1.2.3', ['1.2.3+build.7'])).toEqual(['1.2.3+build.7']);
  });

  it('refuses what Masterminds refuses, with its message', () => {
    expect(rangeError('1.2.3.4')).toEqual({ code: 'OLM_SEMVER_INVALID_RANGE', message: 'improper constraint: 1.2.3.4' });
    expect(rangeError('>= 1.0 || foo')).toEqual({ code: 'OLM_SEMVER_INVALID_RANGE', message: 'improper constraint:  foo' });
    expect(rangeError('')).toMatchObject({ message: 'improper constraint: ' });
    expect(rangeError('1.0 -2.0').message).toBe('improper constraint: 1.0 -2.0');
    expect(rangeError('>>1.0').message).toBe('improper constraint: >>1.0');
    expect(rangeError('1.0.0-01').message).toBe('constraint Parser Error');
  });

  it('bounds the text it reads, naming the limit', () => {
    expect(rangeError(`${'1.0.0 '.repeat(200)}`).message).toBe('version range is 1200 characters long, over the limit of 1024 (a ClusterExtension allows 64)');
    expect(matching(`${'>=1.0.0 '.repeat(120)}`, ['0.1.0', '1.0.0'])).toEqual(['1.0.0']);
  });
});
