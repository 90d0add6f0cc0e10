/**
 * Go `time.Duration` text, as CatalogSource `spec.updateStrategy.registryPoll.interval`, OLMConfig
 * `spec.features.packageServerSyncInterval` and the CLI's duration flags use it ("45m", "1h30m",
 * "1.5h", "300ms"). Upstream parses with `time.ParseDuration` and prints with `Duration.String()`
 * ("15m0s"), so both directions follow Go. Values are milliseconds (fractions allowed).
 */
const nanosecondsPerUnit: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const maxNanoseconds = (1n << 63n) - 1n;
const component = /^(\d*)(?:\.(\d*))?/;

/** Milliseconds, or throws with Go's message (`time: invalid duration "abc"`, `time: unknown unit "x" in duration "10x"`). */
export function parseGoDuration(text: string): number {
  const invalid = () => new Error(`time: invalid duration ${timeQuote(text)}`);
  let rest = text;
  const negative = rest.startsWith('-');
  if (negative || rest.startsWith('+')) rest = rest.slice(1);
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0n;
  while (rest !== '') {
    const [matched, whole = '', fraction] = component.exec(rest)!;
    if (whole === '' && (fraction === undefined || fraction === '')) throw invalid();
    rest = rest.slice(matched.length);
    const unitMatch = /^[^\d.]*/.exec(rest)![0];
    if (unitMatch === '') throw new Error(`time: missing unit in duration ${timeQuote(text)}`);
    const unit = nanosecondsPerUnit[unitMatch];
    if (unit === undefined) throw new Error(`time: unknown unit ${timeQuote(unitMatch)} in duration ${timeQuote(text)}`);
    rest = rest.slice(unitMatch.length);
    total += BigInt(whole === '' ? 0 : whole) * unit;
    if (fraction) {
      // Go keeps whole nanoseconds of a fraction and drops the rest.
      total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    }
    if (total > maxNanoseconds) throw invalid();
  }
  const milliseconds = Number(total / 1_000_000n) + Number(total % 1_000_000n) / 1e6;
  return negative ? -milliseconds : milliseconds;
}

/** Go's `Duration.String()`: `15m0s`, `1h0m0s`, `1.5s`, `300ms`, `500µs`, `0s`. */
export function formatGoDuration(milliseconds: number): string {
  const whole = Math.trunc(milliseconds);
  let nanoseconds = BigInt(whole) * 1_000_000n + BigInt(Math.round((milliseconds - whole) * 1e6));
  const sign = nanoseconds < 0n ? '-' : '';
  if (nanoseconds < 0n) nanoseconds = -nanoseconds;
  if (nanoseconds === 0n) return '0s';
  if (nanoseconds < 1_000n) return `${sign}${nanoseconds}ns`;
  if (nanoseconds < 1_000_000n) return `${sign}${decimal(nanoseconds, 3)}µs`;
  if (nanoseconds < 1_000_000_000n) return `${sign}${decimal(nanoseconds, 6)}ms`;
  const seconds = `${decimal(nanoseconds % 60_000_000_000n, 9)}s`;
  const totalMinutes = nanoseconds / 60_000_000_000n;
  if (totalMinutes === 0n) return `${sign}${seconds}`;
  const hours = totalMinutes / 60n;
  const minutes = `${totalMinutes % 60n}m${seconds}`;
  return hours === 0n ? `${sign}${minutes}` : `${sign}${hours}h${minutes}`;
}

/** `value / 10^digits` with the fraction's trailing zeros (and a bare point) dropped, as Go's fmtFrac. */
function decimal(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const fraction = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return fraction === '' ? `${value / scale}` : `${value / scale}.${fraction}`;
}

/**
 * The time package's own quoting in its errors: `"` and `\` escaped, every byte of a non-ASCII or
 * control character as `\xNN` (simpler than strconv.Quote, and not the same).
 */
function timeQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || code >= 0x80) {
      for (const byte of Buffer.from(char, 'utf8')) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else out += char === '"' || char === '\\' ? `\\${char}` : char;
  }
  return `${out}"`;
}
