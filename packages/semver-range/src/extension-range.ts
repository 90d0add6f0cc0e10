import { SemverError, SemverErrorCodes } from './semver-error.js';
import { compareVersions, parseVersion, type Version } from './version.js';

/**
 * OLM v1's version ranges (`ClusterExtension.spec.source.catalog.version`), which operator-controller
 * parses with Masterminds/semver v3 `NewConstraint`: a different grammar from blang's (`parseRange`),
 * with `~`, `^`, hyphen ranges, `,` for AND, and prereleases matched only when the AND group names one.
 */
export interface ExtensionVersionRange {
  test(version: Version): boolean;
  /** The text the range was parsed from, verbatim. */
  readonly source: string;
}

/** Longest range text accepted; the CRD allows 64 characters, this bounds the parser's regular expressions. */
export const maxExtensionVersionRangeLength = 1024;

type Operator = '=' | '!=' | '>' | '<' | '>=' | '<=' | '~' | '^';

interface Constraint {
  readonly operator: Operator;
  readonly version: Version;
  /** Any wildcard or missing part (Masterminds' `dirty`); a wildcard major (`*`) opens nothing else. */
  readonly open: boolean;
  /** `1` and `1.x` leave minor and patch open, `1.2` and `1.2.x` the patch. */
  readonly minorOpen: boolean;
  readonly patchOpen: boolean;
}

// Masterminds' constraint version: its character class also admits `|` (kept, so the same texts fail).
const part = '[0-9|xX*]+';
const identifiers = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*';
const constraintVersion = `v?(${part})(\\.${part})?(\\.${part})?(-${identifiers})?(\\+${identifiers})?`;
const plainVersion = constraintVersion.replace(/\((?!\?)/g, '(?:');
// Longest operators first, so `>=` is never read as `>` followed by `=`.
const operatorAlternatives = ['!=', '>=', '=>', '<=', '=<', '~>', '=', '>', '<', '~', '\\^', ''].join('|');
const operatorAliases: Readonly<Record<string, Operator>> = { '': '=', '=': '=', '!=': '!=', '>': '>', '<': '<', '>=': '>=', '=>': '>=', '<=': '<=', '=<': '<=', '~': '~', '~>': '~', '^': '^' };

const hyphenRange = new RegExp(`\\s*(${plainVersion})\\s+-\\s+(${plainVersion})\\s*`, 'g');
const validGroup = new RegExp(`^(?:\\s*(?:${operatorAlternatives})\\s*${plainVersion}\\s*)(?:(?:\\s+|,\\s*)(?:${operatorAlternatives})\\s*${plainVersion}\\s*)*$`);
const findConstraint = new RegExp(`(?:${operatorAlternatives})\\s*${plainVersion}`, 'g');
const oneConstraint = new RegExp(`^\\s*(${operatorAlternatives})\\s*(${constraintVersion})\\s*$`);

const isWildcard = (text: string | undefined) => text === 'x' || text === 'X' || text === '*';

function fail(message: string, input: string): never {
  throw new SemverError(SemverErrorCodes.invalidRange, message, input);
}

/** `1.0 - 2.0` → `>= 1.0, <= 2.0 `, as Masterminds rewrites hyphen ranges before anything else. */
function rewriteHyphenRanges(text: string): string {
  let rewritten = text;
  for (const match of text.matchAll(hyphenRange)) rewritten = rewritten.replace(match[0], `>= ${match[1]}, <= ${match[2]} `);
  return rewritten;
}

/** Go's ParseUint reads `01` as 1: leading zeroes of the numeric parts go (prerelease ones stay, and fail). */
function withoutLeadingZeroes(text: string): string {
  const end = text.search(/[-+]/);
  const numbers = end === -1 ? text : text.slice(0, end);
  return numbers.replace(/(^|\.)0+(?=\d)/g, '$1') + (end === -1 ? '' : text.slice(end));
}

/** One comparison; a wildcard or missing part opens it (`>=1.x` is `>=1.0.0`, `<=1.x` is `<2.0.0`). */
function parseConstraint(text: string, input: string): Constraint {
  const match = oneConstraint.exec(text);
  if (!match) fail(`improper constraint: ${text}`, input);
  const [, operatorText = '', whole = '', major = '', minor, patch, prerelease = ''] = match;
  const minorText = minor?.slice(1);
  const patchText = patch?.slice(1);
  let core = whole.replace(/^v/, '');
  let minorOpen = false;
  let patchOpen = false;
  const open = isWildcard(major) || minorText === undefined || isWildcard(minorText) || patchText === undefined || isWildcard(patchText);
  if (isWildcard(major)) core = `0.0.0${prerelease}`;
  else if (minorText === undefined || isWildcard(minorText)) {
    core = `${major}.0.0${prerelease}`;
    minorOpen = true;
  } else if (patchText === undefined || isWildcard(patchText)) {
    core = `${major}.${minorText}.0${prerelease}`;
    patchOpen = true;
  }
  let version: Version;
  try {
    version = parseVersion(withoutLeadingZeroes(core));
  } catch {
    fail('constraint Parser Error', input);
  }
  return { operator: operatorAliases[operatorText] ?? '=', version, open, minorOpen, patchOpen };
}

/**
 * Parses an OLM v1 version range as Masterminds/semver v3 `NewConstraint` does: `||` separates
 * alternatives; within one, comparisons separated by spaces or `,` must all hold. Operators `=` (or
 * none), `!=`, `>`, `>=` (`=>`), `<`, `<=` (`=<`), `~` (`~>`), `^`; wildcards `x`, `X`, `*` and missing
 * parts; hyphen ranges `1.0 - 2.0` (`>= 1.0, <= 2.0`). A prerelease version matches only an alternative
 * that names a prerelease itself. Throws `SemverError` (`OLM_SEMVER_INVALID_RANGE`) with Masterminds'
 * message, e.g. `improper constraint: 1.2.3.4`.
 */
export function parseExtensionVersionRange(text: string): ExtensionVersionRange {
  if (text.length > maxExtensionVersionRangeLength) {
    fail(`version range is ${text.length} characters long, over the limit of ${maxExtensionVersionRangeLength} (a ClusterExtension allows 64)`, text);
  }
  const alternatives = rewriteHyphenRanges(text)
    .split('||')
    .map((group) => {
      if (!validGroup.test(group)) fail(`improper constraint: ${group}`, text);
      const found = group.match(findConstraint) ?? [group];
      const constraints = found.map((constraint) => parseConstraint(constraint, text));
      return { constraints, includePrerelease: constraints.some((constraint) => constraint.version.prerelease.length > 0) };
    });
  return {
    source: text,
    test: (version) => alternatives.some(({ constraints, includePrerelease }) => constraints.every((constraint) => holds(constraint, version, includePrerelease))),
  };
}

function holds(constraint: Constraint, version: Version, includePrerelease: boolean): boolean {
  if (version.prerelease.length > 0 && !includePrerelease) return false;
  const { version: bound, open, minorOpen, patchOpen } = constraint;
  const comparison = compareVersions(version, bound);
  switch (constraint.operator) {
    case '=':
      return open ? tilde(constraint, version, comparison) : comparison === 0;
    case '!=':
      return notEqual(constraint, version, comparison);
    case '<':
      return comparison < 0;
    case '>=':
      return comparison >= 0;
    case '>':
      if (!open || (!minorOpen && !patchOpen && version.major === bound.major)) return comparison > 0;
      if (version.major !== bound.major) return version.major > bound.major;
      return !minorOpen && version.minor > bound.minor;
    case '<=':
      if (!open) return comparison <= 0;
      if (version.major > bound.major) return false;
      return !(version.major === bound.major && version.minor > bound.minor && !minorOpen);
    case '~':
      return tilde(constraint, version, comparison);
    case '^':
      return caret(constraint, version, comparison);
  }
}

/** `!=` with open parts excludes the whole open range (`!=1.2.x` excludes every 1.2 patch). */
function notEqual(constraint: Constraint, version: Version, comparison: number): boolean {
  const { version: bound } = constraint;
  if (constraint.open) {
    if (version.major !== bound.major) return true;
    if (version.minor !== bound.minor && !constraint.minorOpen) return true;
    if (constraint.minorOpen) return false;
    if (version.patch !== bound.patch && !constraint.patchOpen) return true;
    if (constraint.patchOpen) return (version.prerelease.length > 0 || bound.prerelease.length > 0) && version.prerelease.join('.') !== bound.prerelease.join('.');
  }
  return comparison !== 0;
}

/** `~1.2.3` is `>=1.2.3 <1.3.0`; `~1` is `>=1.0.0 <2.0.0`; `~0.0.0` and `*` are anything. */
function tilde(constraint: Constraint, version: Version, comparison: number): boolean {
  const { version: bound } = constraint;
  if (comparison < 0) return false;
  if (bound.major === 0 && bound.minor === 0 && bound.patch === 0 && !constraint.minorOpen && !constraint.patchOpen) return true;
  if (version.major !== bound.major) return false;
  return constraint.minorOpen || version.minor === bound.minor;
}

/** `^1.2.3` is `>=1.2.3 <2.0.0`; `^0.2.3` is `>=0.2.3 <0.3.0`; `^0.0.3` is `=0.0.3`; `^0.0` is `<0.1.0`. */
function caret(constraint: Constraint, version: Version, comparison: number): boolean {
  const { version: bound } = constraint;
  if (comparison < 0) return false;
  if (bound.major > 0 || constraint.minorOpen) return version.major === bound.major;
  if (version.major > 0) return false;
  if (bound.minor > 0 || constraint.patchOpen) return version.minor === bound.minor;
  if (version.minor > 0) return false;
  return version.patch === bound.patch;
}
