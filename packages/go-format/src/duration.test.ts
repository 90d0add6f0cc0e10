import { describe, expect, it } from 'vitest';
import { formatGoDuration, humanDuration, parseGoDuration } from './index.js';

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
    ['+5s', 5000],
    ['1.s', 1000],
    ['.5s', 500],
    ['1h1m1s1ms1us1ns', 3_661_001.001001],
    ['1µs', 0.001],
    ['1μs', 0.001],
    ['2562047h47m16.854775807s', 9_223_372_036_854.775],
  ])('parses %s', (text, milliseconds) => {
    expect(parseGoDuration(text)).toBe(milliseconds);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['abc', 'time: invalid duration "abc"'],
    ['10', 'time: missing unit in duration "10"'],
    ['10x', 'time: unknown unit "x" in duration "10x"'],
    ['m10', 'time: invalid duration "m10"'],
    ['-', 'time: invalid duration "-"'],
    ['.s', 'time: invalid duration ".s"'],
    ['1h-1m', 'time: unknown unit "h-" in duration "1h-1m"'],
    ['2562047h47m16.854775808s', 'time: invalid duration "2562047h47m16.854775808s"'],
    ['3é', 'time: unknown unit "\\xc3\\xa9" in duration "3\\xc3\\xa9"'],
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
    [-90_000, '-1m30s'],
    [0.5, '500µs'],
    [1.5, '1.5ms'],
    [0.000_001, '1ns'],
    [0.001_5, '1.5µs'],
    [86_400_000, '24h0m0s'],
    [61_000.25, '1m1.00025s'],
  ])('formats %d ms as %s', (milliseconds, text) => {
    expect(formatGoDuration(milliseconds)).toBe(text);
  });
});

describe('humanDuration (kubectl Age)', () => {
  it.each([
    [-3_000, '<invalid>'],
    [-1_999, '0s'],
    [0, '0s'],
    [119_999, '119s'],
    [120_000, '2m'],
    [150_000, '2m30s'],
    [600_000, '10m'],
    [179 * 60_000, '179m'],
    [3 * 3_600_000, '3h'],
    [(3 * 60 + 20) * 60_000, '3h20m'],
    [47 * 3_600_000, '47h'],
    [50 * 3_600_000, '2d2h'],
    [8 * 86_400_000, '8d'],
    [730 * 86_400_000, '2y'],
    [760 * 86_400_000, '2y30d'],
    [3000 * 86_400_000, '8y'],
  ])('%d ms reads %s', (milliseconds, text) => {
    expect(humanDuration(milliseconds)).toBe(text);
  });
});
