import { describe, expect, it } from 'vitest';
import { kubernetesFormats } from './formats.js';

const valid = (format: string, value: unknown) => (kubernetesFormats[format]!.validate as (v: unknown) => boolean)(value);

describe('kubernetesFormats', () => {
  it.each([
    ['date-time', '2024-02-29T12:00:00.123+01:00', '2024-02-29'],
    ['date', '2024-02-29', '2024-02-30x'],
    ['ipv4', '10.0.0.1', '10.0.0.256'],
    ['ipv6', '::1', '1::2::3'],
    ['cidr', '10.0.0.0/8', '10.0.0.0/33'],
    ['hostname', 'api.example.com', '-bad-.com'],
    ['uri', 'https://example.com/x', 'not a uri'],
    ['email', 'a@b.c', 'nobody'],
    ['mac', '00:1a:2b:3c:4d:5e', '00:1a:2b'],
    ['uuid4', '123e4567-e89b-42d3-a456-426614174000', '123e4567-e89b-12d3-a456-426614174000'],
    ['byte', 'aGVsbG8gd29ybGQ=', 'a*b'],
    ['duration', '1h30m', 'soon'],
    ['hexcolor', '#fff', '#ggg'],
  ])('%s accepts %s and rejects %s', (format, good, bad) => {
    expect(valid(format, good)).toBe(true);
    expect(valid(format, bad)).toBe(false);
  });

  it('range-checks integer formats', () => {
    expect(valid('int32', -2147483648)).toBe(true);
    expect(valid('int32', 2147483648)).toBe(false);
    expect(valid('int64', 1.5)).toBe(false);
  });

  it('answers long hostile values at once: the fixed patterns have no ambiguous repetition to backtrack', () => {
    const hostile = ['a'.repeat(100_000) + '!', '0'.repeat(100_000) + '!', 'a.'.repeat(50_000) + '!', 'a-'.repeat(50_000) + '!', '1s'.repeat(50_000) + '!', 'AAAA'.repeat(25_000) + '!', `2020-01-01T00:00:00${'.0'.repeat(50_000)}`, 'a@'.repeat(50_000)];
    for (const [format, check] of Object.entries(kubernetesFormats)) {
      if (check.type !== 'string') continue;
      for (const value of hostile) expect(typeof valid(format, value), format).toBe('boolean');
    }
  });
});
