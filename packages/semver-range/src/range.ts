import { goQuote } from '@olm/go-format';
import { SemverError, SemverErrorCodes } from './semver-error.js';
import { compareVersions, parseVersion } from './version.js';
import type { Version } from './version.js';

/** A parsed blang/semver range: a predicate over versions. */
export interface VersionRange {
  test(version: Version): boolean;
  /** The text the range was parsed from, verbatim. */
  readonly source: string;
}

export type ComparatorOperator = '=' | '!=' | '>' | '>=' | '<' | '<=';

/** One comparison of a range after wildcard expansion, e.g. `>=` `1.2.0`. */
export interface Comparator {
  readonly operator: ComparatorOperator;
  readonly version: Version;
}

const operators: Readonly<Record<string, ComparatorOperator>> = {
  '': '=',
  '=': '=',
  '==': '=',
  '!': '!=',
  '!=': '!=',
  '>': '>',
  '>=': '>=',
  '<': '<',
  '<=': '<=',
};

function holds(operator: ComparatorOperator, comparison: -1 | 0 | 1): boolean {
  switch (operator) {
    case '=':
      return comparison === 0;
    case '!=':
      return comparison !== 0;
    case '>':
      return comparison === 1;
    case '>=':
      return comparison >= 0;
    case '<':
      return comparison === -1;
    case '<=':
      return comparison <= 0;
  }
}

class ParsedRange implements VersionRange {
  readonly source: string;
  /** OR of ANDs: the range holds when every comparator of some alternative holds. */
  readonly alternatives: readonly (readonly Comparator[])[];

  constructor(source: string, alternatives: readonly (readonly Comparator[])[]) {
    this.source = source;
    this.alternatives = alternatives;
  }

  test(version: Version): boolean {
    // An empty alternative (`a || || b`) makes blang panic when reached; here it matches nothing.
    return this.alternatives.some((comparators) =>
      comparators.length > 0 &&
      comparators.every((comparator) => holds(comparator.operator, compareVersions(version, comparator.version))),
    );
  }

  toString(): string {
    return this.source;
  }

  toJSON(): string {
    return this.source;
  }
}

function fail(message: string, input: string): never {
  throw new SemverError(SemverErrorCodes.invalidRange, message, input);
}

/**
 * Splits on spaces, except a space right after `>`, `<` or `=` (so `>= 1.0.0` stays one part),
 * then drops the spaces inside each part. Like blang, a one-character part is dropped.
 */
function splitAndTrim(text: string): string[] {
  const result: string[] = [];
  let last = 0;
  let lastChar = '';
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === ' ' && lastChar !== '>' && lastChar !== '<' && lastChar !== '=') {
      if (last < index - 1) result.push(text.slice(last, index));
      last = index + 1;
    } else if (char !== ' ') {
      lastChar = char ?? '';
    }
  }
  if (last < text.length - 1) result.push(text.slice(last));
  return result.map((part) => part.replaceAll(' ', ''));
}

function splitOrParts(parts: readonly string[], input: string): string[][] {
  const alternatives: string[][] = [];
  let last = 0;
  parts.forEach((part, index) => {
    if (part !== '||') return;
    if (index === 0) fail("First element in range is '||'", input);
    alternatives.push(parts.slice(last, index));
    last = index + 1;
  });
  if (last === parts.length) fail("Last element in range is '||'", input);
  alternatives.push(parts.slice(last));
  return alternatives;
}

const firstDigit = /\p{Nd}/u;

function splitComparatorVersion(part: string, input: string): { operator: string; version: string } {
  const match = firstDigit.exec(part);
  if (!match) fail(`Could not get version from string: ${goQuote(part)}`, input);
  return { operator: part.slice(0, match.index).trim(), version: part.slice(match.index) };
}

type WildcardKind = 'none' | 'minor' | 'patch';

function wildcardKind(version: string): WildcardKind {
  const parts = version.split('.');
  if (parts[parts.length - 1] !== 'x') return 'none';
  // blang's "major" wildcard (one part) never reaches here: a bare `x` has no ".x".
  return parts.length === 2 ? 'minor' : parts.length === 3 ? 'patch' : 'none';
}

function flattenWildcard(version: string): string {
  const flat = version.replace('.x.x', '.x').replace('.x', '.0');
  return flat.split('.').length === 2 ? `${flat}.0` : flat;
}

/** Go's `strconv.Atoi` on one dot-separated part, plus one; '' when it does not parse (as blang ignores the error). */
function incrementPart(version: string, index: number): string {
  const parts = version.split('.');
  const text = parts[index] ?? '';
  if (!/^[+-]?[0-9]+$/.test(text)) return '';
  const value = BigInt(text);
  if (value > 9223372036854775807n || value < -9223372036854775808n) return '';
  parts[index] = String(value + 1n);
  return parts.join('.');
}

function expandWildcards(alternatives: readonly (readonly string[])[], input: string): string[][] {
  return alternatives.map((parts) => {
    const expanded: string[] = [];
    for (const part of parts) {
      const { operator, version } = splitComparatorVersion(part, input);
      if (!part.includes('.x')) {
        expanded.push(part);
        continue;
      }
      const kind = wildcardKind(version);
      const flat = flattenWildcard(version);
      let resultOperator = '';
      let shouldIncrement = false;
      switch (operator) {
        case '>':
          resultOperator = '>=';
          shouldIncrement = true;
          break;
        case '>=':
          resultOperator = '>=';
          break;
        case '<':
          resultOperator = '<';
          break;
        case '<=':
          resultOperator = '<';
          shouldIncrement = true;
          break;
        case '':
        case '=':
        case '==':
          expanded.push(`>=${flat}`);
          resultOperator = '<';
          shouldIncrement = true;
          break;
        case '!=':
        case '!':
          expanded.push(`<${flat}`);
          resultOperator = '>=';
          shouldIncrement = true;
          break;
      }
      let resultVersion = flat;
      if (shouldIncrement) {
        resultVersion = kind === 'patch' ? incrementPart(flat, 1) : kind === 'minor' ? incrementPart(flat, 0) : '';
      }
      expanded.push(resultOperator + resultVersion);
    }
    return expanded;
  });
}

function buildComparator(part: string, input: string): Comparator {
  const { operator: operatorText, version: versionText } = splitComparatorVersion(part, input);
  const operator = operators[operatorText];
  if (operator === undefined) {
    fail(`Could not parse Range ${goQuote(part)}: Could not parse comparator ${goQuote(operatorText)} in ${goQuote(operatorText + versionText)}`, input);
  }
  try {
    return { operator, version: parseVersion(versionText) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return fail(
      `Could not parse Range ${goQuote(part)}: Could not parse version ${goQuote(versionText)} in ${goQuote(operatorText + versionText)}: ${reason}`,
      input,
    );
  }
}

/**
 * Parses a range with blang/semver v4 `ParseRange` grammar: comparators separated by spaces are
 * ANDed, `||` separates alternatives (AND binds tighter); operators `<` `<=` `>` `>=` `=` `==`
 * `!` `!=` or none (`=`); `x` wildcards (`1.2.x`, `>=2.1.x`, `<=1.x`). Comparison is plain
 * SemVer precedence: prereleases are not excluded (`<2.0.0` matches `2.0.0-rc.1`).
 * Throws a `SemverError` (`OLM_SEMVER_INVALID_RANGE`) with blang's message.
 */
export function parseRange(text: string): VersionRange {
  const alternatives = expandWildcards(splitOrParts(splitAndTrim(text), text), text);
  return new ParsedRange(
    text,
    alternatives.map((parts) => parts.map((part) => buildComparator(part, text))),
  );
}

/** The comparators of a range parsed here (OR of ANDs, after wildcard expansion); undefined for other implementations. */
export function rangeComparators(range: VersionRange): readonly (readonly Comparator[])[] | undefined {
  return range instanceof ParsedRange ? range.alternatives : undefined;
}

/**
 * True when `version` is in `range`. A version string is parsed strictly; one that does not parse
 * is in no range (OLM's behaviour for a bundle with an unparsable version). A range string that
 * does not parse throws, as `parseRange`.
 */
export function satisfies(version: string | Version, range: string | VersionRange): boolean {
  const parsedRange = typeof range === 'string' ? parseRange(range) : range;
  let parsedVersion: Version;
  if (typeof version === 'string') {
    try {
      parsedVersion = parseVersion(version);
    } catch {
      return false;
    }
  } else {
    parsedVersion = version;
  }
  return parsedRange.test(parsedVersion);
}
