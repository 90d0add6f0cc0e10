import { describe, expect, it } from 'vitest';
import * as npmSemver from 'semver';
import { SemverErrorCodes } from './semver-error.js';
import { compareVersions, isValidVersion, parseVersion, parseVersionTolerant } from './version.js';

function parseError(parse: (text: string) => unknown, text: string): { code: string; message: string } {
  try {
    parse(text);
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseVersion (blang Parse)', () => {
  it('parses core, prerelease and build', () => {
    const version = parseVersion('1.16.17-cee.1+build.7');
    expect(version.major).toBe(1);
    expect(version.minor).toBe(16);
    expect(version.patch).toBe(17);
    expect(version.prerelease).toEqual(['cee', 1]);
    expect(version.build).toEqual(['build', '7']);
    expect(version.toString()).toBe('1.16.17-cee.1+build.7');
    expect(JSON.stringify({ version })).toBe('{"version":"1.16.17-cee.1+build.7"}');
  });

  it.each([
    ['', 'Version string empty'],
    ['1.2', 'No Major.Minor.Patch elements found'],
    ['v1.2.3', 'Invalid character(s) found in major number "v1"'],
    ['0.1.0.1', 'Invalid character(s) found in patch number "0.1"'],
    ['01.2.3', 'Major number must not contain leading zeroes "01"'],
    ['1.02.3', 'Minor number must not contain leading zeroes "02"'],
    ['1.2.03', 'Patch number must not contain leading zeroes "03"'],
    ['1.a.3', 'Invalid character(s) found in minor number "a"'],
    ['1..3', 'strconv.ParseUint: parsing "": invalid syntax'],
    ['1.2.3-', 'Prerelease is empty'],
    ['1.2.3-01', 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ['1.2.3-a_b', 'Invalid character(s) found in prerelease "a_b"'],
    ['1.2.3+', 'Build meta data is empty'],
    ['1.2.3+a..b', 'Build meta data is empty'],
    ['1.2.3+a/b', 'Invalid character(s) found in build meta data "a/b"'],
    ['18446744073709551616.0.0', 'strconv.ParseUint: parsing "18446744073709551616": value out of range'],
    [' 1.2.3', 'Invalid character(s) found in major number " 1"'],
    ['1.2.3\t', 'Invalid character(s) found in patch number "3\\t"'],
  ])('rejects %j with blang message', (text, message) => {
    expect(parseError(parseVersion, text)).toEqual({ code: SemverErrorCodes.invalidVersion, message });
    expect(isValidVersion(text)).toBe(false);
  });

  it('keeps uint64 precision beyond 2^53', () => {
    const big = parseVersion('1.2.9007199254740993');
    const smaller = parseVersion('1.2.9007199254740992');
    expect(big.toString()).toBe('1.2.9007199254740993');
    expect(compareVersions(big, smaller)).toBe(1);
    expect(compareVersions(smaller, big)).toBe(-1);
    expect(compareVersions(parseVersion('1.2.3-9007199254740993'), parseVersion('1.2.3-9007199254740992'))).toBe(1);
  });
});

describe('parseVersionTolerant (blang ParseTolerant)', () => {
  it.each([
    ['v1.2.3', '1.2.3'],
    [' 1.2.3 ', '1.2.3'],
    ['1.2', '1.2.0'],
    ['4', '4.0.0'],
    ['4.19', '4.19.0'],
    ['01.002.0003', '1.2.3'],
    ['1.2.00-alpha', '1.2.0-alpha'],
    ['1.2.01-alpha', '1.2.1-alpha'],
  ])('%j → %s', (text, expected) => {
    expect(parseVersionTolerant(text).toString()).toBe(expected);
  });

  it.each([
    ['1.2-rc', 'Short version cannot contain PreRelease/Build meta data'],
    // '' is filled up to ".0.0"; blang then fails on the empty major part.
    ['', 'strconv.ParseUint: parsing "": invalid syntax'],
    // Only a lowercase 'v' is stripped; leading-zero handling then prefixes a '0'.
    ['V1.2.3', 'Invalid character(s) found in major number "0V1"'],
  ])('rejects %j', (text, message) => {
    expect(parseError(parseVersionTolerant, text)).toEqual({ code: SemverErrorCodes.invalidVersion, message });
  });
});

describe('compareVersions (SemVer precedence)', () => {
  const ordered = [
    '0.9.9',
    '1.0.0-0',
    '1.0.0-1',
    '1.0.0-2',
    '1.0.0-10',
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1',
    '1.1.0',
    '1.10.0',
    '2.0.0',
  ];

  it('orders the SemVer specification examples', () => {
    for (let i = 0; i < ordered.length; i += 1) {
      for (let j = 0; j < ordered.length; j += 1) {
        const a = parseVersion(ordered[i] ?? '');
        const b = parseVersion(ordered[j] ?? '');
        expect(compareVersions(a, b), `${ordered[i]} vs ${ordered[j]}`).toBe(Math.sign(i - j));
      }
    }
  });

  it('ignores build metadata', () => {
    expect(compareVersions(parseVersion('1.0.0+a'), parseVersion('1.0.0+b'))).toBe(0);
    expect(compareVersions(parseVersion('1.0.0-rc.1+a'), parseVersion('1.0.0-rc.1'))).toBe(0);
  });

  it('agrees with npm semver precedence on random valid versions', () => {
    // npm's compare follows SemVer 2.0 precedence too; a seeded walk cross-checks the two.
    let seed = 7;
    const next = (limit: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % limit;
    };
    const identifiers = ['alpha', 'beta', 'rc', '0', '1', '2', '11', 'x-y', 'cee'];
    const make = (): string => {
      const core = `${next(3)}.${next(3)}.${next(3)}`;
      const length = next(3);
      const pre = Array.from({ length }, () => identifiers[next(identifiers.length)]).join('.');
      return length > 0 ? `${core}-${pre}` : core;
    };
    for (let round = 0; round < 500; round += 1) {
      const a = make();
      const b = make();
      expect(compareVersions(parseVersion(a), parseVersion(b)), `${a} vs ${b}`).toBe(npmSemver.compare(a, b));
    }
  });
});
