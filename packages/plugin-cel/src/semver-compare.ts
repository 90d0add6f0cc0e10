import { compareVersions, parseVersionTolerant, type Version } from '@olm/semver-range';

/**
 * CEL `semver_compare(a, b) -> int`, as upstream OLM declares it: both arguments are `dyn`,
 * printed as Go's `fmt.Sprint` would, parsed with blang's ParseTolerant and compared: -1, 0 or 1
 * (a CEL int, so a BigInt). An unparsable argument throws, which makes the rule false.
 */
export function semverCompare(a: unknown, b: unknown): bigint {
  return BigInt(compareVersions(parseArgument(a), parseArgument(b)));
}

/** Parsed versions by text: a rule compares every candidate against the same literal, often many times. */
const parsedVersions = new Map<string, Version>();
const PARSED_VERSIONS_MAX = 1024;

function parseArgument(value: unknown): Version {
  const text = printLikeGo(value);
  const cached = text === undefined ? undefined : parsedVersions.get(text);
  if (cached !== undefined) return cached;
  try {
    if (text === undefined) throw new Error('not a scalar');
    const version = parseVersionTolerant(text);
    if (parsedVersions.size >= PARSED_VERSIONS_MAX) parsedVersions.clear();
    parsedVersions.set(text, version);
    return version;
  } catch (error) {
    throw new Error(`unable to parse '${text ?? describeValue(value)}' to semver format`, { cause: error });
  }
}

/** Go's `fmt.Sprint` text for the scalars a rule can pass; undefined for lists, maps and null. */
function printLikeGo(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (isUnsignedInt(value)) return String(value.valueOf());
  if (typeof value === 'number') return formatFloatLikeGo(value);
  return undefined;
}

/** cel-js wraps CEL `uint` values in an object whose `valueOf()` is a BigInt. */
function isUnsignedInt(value: unknown): value is { valueOf(): bigint } {
  return typeof value === 'object' && value !== null && typeof value.valueOf() === 'bigint';
}

/** `%v` of a float64: shortest digits, exponent form below 1e-4 or from 1e21 with a two-digit exponent. */
function formatFloatLikeGo(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude < 1e-4 || magnitude >= 1e21)) {
    const [mantissa, exponent = '0'] = value.toExponential().split('e');
    const sign = exponent.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  return String(value);
}

function describeValue(value: unknown): string {
  if (value === null) return '<nil>';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
