import { InvalidArgumentError } from 'commander';
import { usageError } from './cli-errors.js';

// Parsers throw commander's InvalidArgumentError so that the message names the flag that was given
// (`option '--timeout <ms>' argument 'soon' is invalid. ...`) and the exit code is the usage one.

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) throw new InvalidArgumentError('a port is a number from 0 to 65535 (0 picks a free one).');
  return Number(value);
}

export function parseMilliseconds(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('give a whole number of milliseconds, e.g. 30000.');
  return Number(value);
}

export function parsePositiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < 1) {
    throw new InvalidArgumentError('give a whole number greater than 0, e.g. 50000000.');
  }
  return Number(value);
}

/** `a,b , c` → `['a', 'b', 'c']`. */
export function parseList(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** Collects a repeatable option (`--catalog a --catalog b`) into a list. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * A Go duration flag (`90s`, `1m30m`, `2h`), as upstream's flags take them, in milliseconds;
 * undefined when not given. Parsed when the command runs: the parser lives in `@olm/go-format`,
 * which `--help` and `--version` do not load.
 */
export async function parseDurationFlag(flag: string, value: string | undefined, options: { readonly allowZero?: boolean } = {}): Promise<number | undefined> {
  if (value === undefined) return undefined;
  const { parseGoDuration } = await import('@olm/go-format');
  let milliseconds: number;
  try {
    milliseconds = parseGoDuration(value);
  } catch (error) {
    throw usageError(`${flag} ${JSON.stringify(value)}: ${(error as Error).message}; give a duration such as 90s, 5m or 1h30m`);
  }
  if (options.allowZero && milliseconds === 0) return 0;
  if (!(milliseconds > 0)) throw usageError(`${flag} ${JSON.stringify(value)}: give a duration above zero, such as 90s, 5m or 1h30m${options.allowZero ? ', or 0 for none' : ''}`);
  return milliseconds;
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A `namespace/name` reference to an object (e.g. a Secret), both parts checked to be Kubernetes names. */
export function parseNamespacedName(flag: string, value: string | undefined): { namespace: string; name: string } | undefined {
  if (value === undefined) return undefined;
  const [namespace = '', name = '', ...rest] = value.split('/');
  if (rest.length > 0 || namespace.length > 63 || !dnsLabel.test(namespace) || name.length > 253 || !dnsSubdomain.test(name)) {
    throw usageError(`${flag} ${JSON.stringify(value)}: give the Secret as NAMESPACE/NAME, e.g. olm/global-pull-secret`);
  }
  return { namespace, name };
}
