import { usageError } from './cli-errors.js';

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) throw usageError(`--port must be a number from 0 to 65535, got "${value}"`);
  return Number(value);
}

export function parseMilliseconds(value: string): number {
  if (!/^\d+$/.test(value)) throw usageError(`--run-for must be a number of milliseconds, got "${value}"`);
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
