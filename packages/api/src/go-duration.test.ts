import { describe, expect, it } from 'vitest';
import { formatGoDuration, parseGoDuration } from './go-duration.js';

describe('Go durations', () => {
  it.each([
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['300ms', 300],
    ['45s', 45_000],
    ['0', 0],
    ['2h45m10s', 9_910_000],
    ['-1m', -60_000],
  ])('parses %s', (text, milliseconds) => {
    expect(parseGoDuration(text)).toBe(milliseconds);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['abc', 'time: invalid duration "abc"'],
    ['10', 'time: missing unit in duration "10"'],
    ['10x', 'time: unknown unit "x" in duration "10x"'],
    ['m10', 'time: invalid duration "m10"'],
  ])('rejects %j', (text, message) => {
    expect(() => parseGoDuration(text)).toThrow(message);
  });

  it.each([
    [900_000, '15m0s'],
    [3_600_000, '1h0m0s'],
    [5_410_000, '1h30m10s'],
    [1500, '1.5s'],
    [300, '300ms'],
    [0, '0s'],
  ])('formats %d ms as %s', (milliseconds, text) => {
    expect(formatGoDuration(milliseconds)).toBe(text);
  });
});
