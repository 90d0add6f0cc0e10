import { InvalidArgumentError } from 'commander';

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
