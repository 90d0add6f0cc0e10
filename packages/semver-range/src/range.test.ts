import { describe, expect, it } from 'vitest';
import { SemverErrorCodes } from './semver-error.js';
import { parseRange, rangeComparators, satisfies } from './range.js';
import { parseVersion } from './version.js';

function rangeError(text: string): { code: string; message: string } {
  try {
    parseRange(text);
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

function matching(range: string, versions: readonly string[]): string[] {
  const parsed = parseRange(range);
  return versions.filter((version) => parsed.test(parseVersion(version)));
}

describe('parseRange (blang ParseRange)', () => {
  it('treats spaces as AND and || as OR, AND binding tighter', () => {
    const versions = ['1.2.3', '1.9.9', '2.1.1', '3.1.1', '4.2.1'];
    expect(matching('>1.0.0 <2.0.0 || >3.0.0 !4.2.1', versions)).toEqual(['1.2.3', '1.9.9', '3.1.1']);
  });

  it('accepts every operator and a bare version', () => {
    const versions = ['0.9.0', '1.0.0', '1.1.0'];
    expect(matching('<1.0.0', versions)).toEqual(['0.9.0']);
    expect(matching('<=1.0.0', versions)).toEqual(['0.9.0', '1.0.0']);
    expect(matching('>1.0.0', versions)).toEqual(['1.1.0']);
    expect(matching('>=1.0.0', versions)).toEqual(['1.0.0', '1.1.0']);
    expect(matching('1.0.0', versions)).toEqual(['1.0.0']);
    expect(matching('=1.0.0', versions)).toEqual(['1.0.0']);
    expect(matching('==1.0.0', versions)).toEqual(['1.0.0']);
    expect(matching('!1.0.0', versions)).toEqual(['0.9.0', '1.1.0']);
    expect(matching('!=1.0.0', versions)).toEqual(['0.9.0', '1.1.0']);
  });

  it('compares plainly: prereleases are not excluded (unlike npm)', () => {
    expect(satisfies('2.0.0-rc.1', '<2.0.0')).toBe(true);
    expect(satisfies('1.5.0-alpha', '>=1.0.0 <2.0.0')).toBe(true);
    expect(satisfies('1.26.0-rc.1', '>=1.25.0 <1.26.0')).toBe(true);
    expect(satisfies('2.0.0-rc.1', '<2.0.0-0')).toBe(false);
  });

  it('ignores build metadata when comparing', () => {
    expect(satisfies('1.0.0+build.5', '1.0.0')).toBe(true);
  });

  it.each([
    ['1.22.8 || >=1.25.0 <1.26.0', ['1.22.8', '1.25.0', '1.25.9'], ['1.22.9', '1.26.0', '1.24.0']],
    ['>=5.0.0 <5.1.2 !5.1.0-alpha1', ['5.0.0', '5.1.0', '5.1.1', '5.1.0-alpha2'], ['5.1.0-alpha1', '5.1.2', '4.9.9']],
    ['>= 1.18.0 < 1.25.5', ['1.18.0', '1.25.4', '1.25.5-rc.1'], ['1.17.9', '1.25.5']],
    ['>=2.1.x <2.2.1', ['2.1.0', '2.2.0'], ['2.0.9', '2.2.1']],
    ['>=1.16.17-cee.1 <1.16.19-cee.1', ['1.16.17-cee.1', '1.16.17', '1.16.18', '1.16.19-cee.0'], ['1.16.16', '1.16.17-cee.0', '1.16.19-cee.1']],
  ])('real-catalog range %j', (range, inside, outside) => {
    for (const version of inside) expect(satisfies(version, range), version).toBe(true);
    for (const version of outside) expect(satisfies(version, range), version).toBe(false);
  });

  it.each([
    ['>=2.1.x', [['>=', '2.1.0']]],
    ['>2.1.x', [['>=', '2.2.0']]],
    ['<2.1.x', [['<', '2.1.0']]],
    ['<=1.2.x', [['<', '1.3.0']]],
    ['1.2.x', [['>=', '1.2.0'], ['<', '1.3.0']]],
    ['!=1.2.x', [['<', '1.2.0'], ['>=', '1.3.0']]],
    ['>=1.x', [['>=', '1.0.0']]],
    ['<=1.x', [['<', '2.0.0']]],
    ['>1.x', [['>=', '2.0.0']]],
    ['1.x', [['>=', '1.0.0'], ['<', '2.0.0']]],
    // blang's quirk: "1.x.x" is flattened to 1.0.0 but treated as a patch wildcard.
    ['<=1.x.x', [['<', '1.1.0']]],
  ])('expands wildcard %j', (range, expected) => {
    const comparators = rangeComparators(parseRange(range));
    expect(comparators?.[0]?.map((comparator) => [comparator.operator, comparator.version.toString()])).toEqual(expected);
  });

  it.each([
    ['>v0.1.0', 'Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"'],
    ['>=4.8', 'Could not parse Range ">=4.8": Could not parse version "4.8" in ">=4.8": No Major.Minor.Patch elements found'],
    ['~1.2.3', 'Could not parse Range "~1.2.3": Could not parse comparator "~" in "~1.2.3"'],
    ['^1.2.3', 'Could not parse Range "^1.2.3": Could not parse comparator "^" in "^1.2.3"'],
    ['>=1.0.0 <v2.0.0', 'Could not parse Range "<v2.0.0": Could not parse comparator "<v" in "<v2.0.0"'],
    ['|| 1.0.0', "First element in range is '||'"],
    ['1.0.0 ||', "Last element in range is '||'"],
    ['', "Last element in range is '||'"],
    ['latest', 'Could not get version from string: "latest"'],
    ['>=1.0.0-01', 'Could not parse Range ">=1.0.0-01": Could not parse version "1.0.0-01" in ">=1.0.0-01": Numeric PreRelease version must not contain leading zeroes "01"'],
  ])('rejects %j with blang message', (range, message) => {
    expect(rangeError(range)).toEqual({ code: SemverErrorCodes.invalidRange, message });
  });

  it('drops one-character parts as blang does (a hyphen range is two equalities)', () => {
    expect(matching('1.0.0 - 2.0.0', ['1.0.0', '1.5.0', '2.0.0'])).toEqual([]);
    expect(matching('>=1.0.0 x', ['1.0.0', '0.5.0'])).toEqual(['1.0.0']);
  });

  it('combines wildcards with AND and OR', () => {
    const versions = ['0.9.2', '1.0.0', '1.9.9', '2.0.0', '2.1.8', '2.2.0', '3.0.0'];
    expect(matching('1.x || >=2.0.x <2.2.x', versions)).toEqual(['1.0.0', '1.9.9', '2.0.0', '2.1.8']);
    expect(matching('  >=   1.0.0   <=  2.0.0   ', versions)).toEqual(['1.0.0', '1.9.9', '2.0.0']);
    expect(matching('>1.x', versions)).toEqual(['2.0.0', '2.1.8', '2.2.0', '3.0.0']);
    expect(rangeError('fo.ob.ar.x').message).toBe('Could not get version from string: "fo.ob.ar.x"');
    expect(rangeError('>>1.2.3').message).toBe('Could not parse Range ">>1.2.3": Could not parse comparator ">>" in ">>1.2.3"');
  });

  it('keeps the source text', () => {
    expect(parseRange('>= 1.18.0 < 1.25.5').source).toBe('>= 1.18.0 < 1.25.5');
    expect(String(parseRange('>=1.0.0'))).toBe('>=1.0.0');
  });

  it('satisfies: an unparsable version is in no range; an unparsable range throws', () => {
    expect(satisfies('v1.0.0', '>=0.0.0')).toBe(false);
    expect(satisfies('not-a-version', '>=0.0.0')).toBe(false);
    expect(satisfies(parseVersion('1.0.0'), parseRange('>=0.0.0'))).toBe(true);
    expect(() => satisfies('1.0.0', '>=4.8')).toThrow(/No Major.Minor.Patch elements found/);
  });

  it('an empty alternative matches nothing instead of failing', () => {
    expect(satisfies('3.0.0', '1.0.0 || || 2.0.0')).toBe(false);
    expect(satisfies('2.0.0', '1.0.0 || || 2.0.0')).toBe(true);
  });
});
