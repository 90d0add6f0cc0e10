/**
 * Go `time.Duration` strings, as CatalogSource `spec.updateStrategy.registryPoll.interval` and OLMConfig
 * `spec.features.packageServerSyncInterval` use them
 * ("45m", "1h30m", "1.5h", "300ms"). Upstream parses with `time.ParseDuration` and prints with
 * `Duration.String()` ("15m0s"), so both sides follow Go here.
 */
const unitMilliseconds: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Milliseconds, or throws with Go's message shape (`time: invalid duration "abc"`). */
export function parseGoDuration(text: string): number {
  const invalid = () => new Error(`time: invalid duration ${JSON.stringify(text)}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length > 0) {
    const match = part.exec(rest);
    if (!match) {
      const number = /^(\d+(?:\.\d*)?|\.\d+)([^\d.]*)/.exec(rest);
      if (!number) throw invalid();
      const unit = number[2]!;
      if (unit === '') throw new Error(`time: missing unit in duration ${JSON.stringify(text)}`);
      throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`);
    }
    total += Number(match[1]) * unitMilliseconds[match[2]!]!;
    rest = rest.slice(match[0].length);
  }
  return sign * total;
}

/** Go's `Duration.String()` for whole milliseconds and more: `15m0s`, `1h0m0s`, `1.5s`, `300ms`, `0s`. */
export function formatGoDuration(milliseconds: number): string {
  if (milliseconds === 0) return '0s';
  const sign = milliseconds < 0 ? '-' : '';
  let remaining = Math.abs(milliseconds);
  if (remaining < 1000) return `${sign}${trimNumber(remaining)}ms`;
  const hours = Math.floor(remaining / 3_600_000);
  remaining -= hours * 3_600_000;
  const minutes = Math.floor(remaining / 60_000);
  remaining -= minutes * 60_000;
  const seconds = `${trimNumber(remaining / 1000)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function trimNumber(value: number): string {
  return String(Number(value.toFixed(9)));
}
