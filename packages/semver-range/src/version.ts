import { goQuote } from '@olm/go-format';
import { SemverError, SemverErrorCodes } from './semver-error.js';

/** A SemVer 2.0 version as blang/semver v4 models it. */
export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Prerelease identifiers: numbers for numeric identifiers, strings otherwise. */
  readonly prerelease: readonly (string | number)[];
  /** Build metadata identifiers (no precedence). */
  readonly build: readonly string[];
  toString(): string;
}

const digits = /^[0-9]*$/;
const alphanumerics = /^[0-9A-Za-z-]*$/;
const maxUint64 = 18446744073709551615n;

/** Exact values of numbers above 2^53 (blang uses uint64), kept so comparison stays exact. */
const exactNumbers = new WeakMap<Version, { core: readonly bigint[]; prerelease: readonly (string | bigint)[] }>();

class ParsedVersion implements Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: readonly (string | number)[];
  readonly build: readonly string[];
  readonly #text: string;

  constructor(core: readonly bigint[], prerelease: readonly (string | bigint)[], build: readonly string[]) {
    this.major = Number(core[0]);
    this.minor = Number(core[1]);
    this.patch = Number(core[2]);
    this.prerelease = prerelease.map((identifier) => (typeof identifier === 'bigint' ? Number(identifier) : identifier));
    this.build = build;
    let text = `${core[0]}.${core[1]}.${core[2]}`;
    if (prerelease.length > 0) text += `-${prerelease.join('.')}`;
    if (build.length > 0) text += `+${build.join('.')}`;
    this.#text = text;
    const isExactAsNumbers =
      core.every((part) => part <= BigInt(Number.MAX_SAFE_INTEGER)) &&
      prerelease.every((identifier) => typeof identifier === 'string' || identifier <= BigInt(Number.MAX_SAFE_INTEGER));
    if (!isExactAsNumbers) exactNumbers.set(this, { core, prerelease });
  }

  toString(): string {
    return this.#text;
  }

  toJSON(): string {
    return this.#text;
  }
}

function fail(message: string, input: string): never {
  throw new SemverError(SemverErrorCodes.invalidVersion, message, input);
}

/** Go's `strconv.ParseUint(text, 10, 64)`, with its error text. */
function parseUint64(text: string, input: string): bigint {
  if (text.length === 0 || !digits.test(text)) fail(`strconv.ParseUint: parsing ${goQuote(text)}: invalid syntax`, input);
  const value = BigInt(text);
  if (value > maxUint64) fail(`strconv.ParseUint: parsing ${goQuote(text)}: value out of range`, input);
  return value;
}

function hasLeadingZeroes(text: string): boolean {
  return text.length > 1 && text.startsWith('0');
}

/** Go's `strings.SplitN(s, ".", 3)`. */
function splitCore(text: string): string[] {
  const first = text.indexOf('.');
  if (first === -1) return [text];
  const second = text.indexOf('.', first + 1);
  if (second === -1) return [text.slice(0, first), text.slice(first + 1)];
  return [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
}

function parseNumericPart(part: string, name: 'major' | 'minor' | 'patch', input: string): bigint {
  // An empty part passes blang's character check and fails in ParseUint, as upstream.
  if (!digits.test(part)) fail(`Invalid character(s) found in ${name} number ${goQuote(part)}`, input);
  if (hasLeadingZeroes(part)) {
    const label = name.charAt(0).toUpperCase() + name.slice(1);
    fail(`${label} number must not contain leading zeroes ${goQuote(part)}`, input);
  }
  return parseUint64(part, input);
}

function parsePrereleaseIdentifier(identifier: string, input: string): string | bigint {
  if (identifier.length === 0) fail('Prerelease is empty', input);
  if (digits.test(identifier)) {
    if (hasLeadingZeroes(identifier)) {
      fail(`Numeric PreRelease version must not contain leading zeroes ${goQuote(identifier)}`, input);
    }
    return parseUint64(identifier, input);
  }
  if (!alphanumerics.test(identifier)) fail(`Invalid character(s) found in prerelease ${goQuote(identifier)}`, input);
  return identifier;
}

/**
 * Parses a version strictly, as blang/semver v4 `Parse`: exactly `MAJOR.MINOR.PATCH`, optional
 * `-prerelease` and `+build`, no leading `v`, no leading zeroes. Throws a `SemverError`
 * (`OLM_SEMVER_INVALID_VERSION`) carrying blang's message, e.g. `No Major.Minor.Patch elements found`.
 */
export function parseVersion(text: string): Version {
  if (text.length === 0) fail('Version string empty', text);
  const parts = splitCore(text);
  if (parts.length !== 3) fail('No Major.Minor.Patch elements found', text);
  const [majorText = '', minorText = '', rest = ''] = parts;
  const major = parseNumericPart(majorText, 'major', text);
  const minor = parseNumericPart(minorText, 'minor', text);

  let patchText = rest;
  let buildIdentifiers: string[] = [];
  let prereleaseIdentifiers: string[] = [];
  const buildIndex = patchText.indexOf('+');
  if (buildIndex !== -1) {
    buildIdentifiers = patchText.slice(buildIndex + 1).split('.');
    patchText = patchText.slice(0, buildIndex);
  }
  const prereleaseIndex = patchText.indexOf('-');
  if (prereleaseIndex !== -1) {
    prereleaseIdentifiers = patchText.slice(prereleaseIndex + 1).split('.');
    patchText = patchText.slice(0, prereleaseIndex);
  }
  const patch = parseNumericPart(patchText, 'patch', text);
  const prerelease = prereleaseIdentifiers.map((identifier) => parsePrereleaseIdentifier(identifier, text));
  for (const identifier of buildIdentifiers) {
    if (identifier.length === 0) fail('Build meta data is empty', text);
    if (!alphanumerics.test(identifier)) fail(`Invalid character(s) found in build meta data ${goQuote(identifier)}`, text);
  }
  return new ParsedVersion([major, minor, patch], prerelease, buildIdentifiers);
}

/**
 * Parses a version leniently, as blang/semver v4 `ParseTolerant`: trims spaces, strips one
 * leading `v`, removes leading zeroes and fills a missing minor/patch with 0 (`v1.2` → `1.2.0`).
 */
export function parseVersionTolerant(text: string): Version {
  const trimmed = text.trim();
  const withoutPrefix = trimmed.startsWith('v') ? trimmed.slice(1) : trimmed;
  const parts = splitCore(withoutPrefix).map((part) => {
    if (part.length <= 1) return part;
    const stripped = part.replace(/^0+/, '');
    return stripped.length === 0 || !/^[0-9]/.test(stripped) ? `0${stripped}` : stripped;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1] ?? '')) fail('Short version cannot contain PreRelease/Build meta data', text);
    while (parts.length < 3) parts.push('0');
  }
  return parseVersion(parts.join('.'));
}

function exactCore(version: Version): readonly bigint[] {
  const exact = exactNumbers.get(version);
  return exact ? exact.core : [BigInt(version.major), BigInt(version.minor), BigInt(version.patch)];
}

function exactPrerelease(version: Version): readonly (string | bigint)[] {
  const exact = exactNumbers.get(version);
  return exact ? exact.prerelease : version.prerelease.map((identifier) => (typeof identifier === 'number' ? BigInt(identifier) : identifier));
}

function sign(difference: number): -1 | 0 | 1 {
  return difference < 0 ? -1 : difference > 0 ? 1 : 0;
}

function compareIdentifiers(a: string | number | bigint, b: string | number | bigint): -1 | 0 | 1 {
  const isNumericA = typeof a !== 'string';
  const isNumericB = typeof b !== 'string';
  if (isNumericA && !isNumericB) return -1;
  if (!isNumericA && isNumericB) return 1;
  if (a === b) return 0;
  return a > b ? 1 : -1;
}

/**
 * SemVer precedence, as blang `Version.Compare`: major, minor, patch numerically; a version without
 * prerelease ranks above one with; prerelease identifiers compared one by one (numeric below
 * alphanumeric, strings by byte order); build metadata ignored.
 */
export function compareVersions(a: Version, b: Version): -1 | 0 | 1 {
  if (exactNumbers.has(a) || exactNumbers.has(b)) {
    const coreA = exactCore(a);
    const coreB = exactCore(b);
    for (let index = 0; index < 3; index += 1) {
      const partA = coreA[index] ?? 0n;
      const partB = coreB[index] ?? 0n;
      if (partA !== partB) return partA > partB ? 1 : -1;
    }
    return comparePrerelease(exactPrerelease(a), exactPrerelease(b));
  }
  if (a.major !== b.major) return sign(a.major - b.major);
  if (a.minor !== b.minor) return sign(a.minor - b.minor);
  if (a.patch !== b.patch) return sign(a.patch - b.patch);
  return comparePrerelease(a.prerelease, b.prerelease);
}

function comparePrerelease(a: readonly (string | number | bigint)[], b: readonly (string | number | bigint)[]): -1 | 0 | 1 {
  if (a.length === 0 && b.length === 0) return 0;
  if (a.length === 0) return 1;
  if (b.length === 0) return -1;
  const shared = Math.min(a.length, b.length);
  for (let index = 0; index < shared; index += 1) {
    const comparison = compareIdentifiers(a[index] ?? '', b[index] ?? '');
    if (comparison !== 0) return comparison;
  }
  return sign(a.length - b.length);
}

/** True when `text` parses strictly (blang `Parse`). */
export function isValidVersion(text: string): boolean {
  try {
    parseVersion(text);
    return true;
  } catch {
    return false;
  }
}
