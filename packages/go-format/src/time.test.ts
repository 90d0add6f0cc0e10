import { describe, expect, it } from 'vitest';
import { formatMicroTime, formatTime, nowTime } from './index.js';

describe('metav1.Time and MicroTime', () => {
  it('writes RFC 3339 in UTC with whole seconds (fraction dropped, not rounded)', () => {
    expect(formatTime(new Date('2024-01-02T03:04:05.999Z'))).toBe('2024-01-02T03:04:05Z');
    expect(formatTime(new Date('2024-01-02T05:04:05+02:00'))).toBe('2024-01-02T03:04:05Z');
    expect(formatTime(new Date(0))).toBe('1970-01-01T00:00:00Z');
  });

  it('writes MicroTime with six fraction digits', () => {
    expect(formatMicroTime(new Date('2024-01-02T03:04:05.123Z'))).toBe('2024-01-02T03:04:05.123000Z');
    expect(formatMicroTime(new Date('2024-01-02T03:04:05Z'))).toBe('2024-01-02T03:04:05.000000Z');
  });

  it('formats now within a second of the clock', () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const now = Date.parse(nowTime());
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('timestampAge', () => {
  it('reads as kubectl prints an age, <unknown> without a readable timestamp', async () => {
    const { timestampAge } = await import('./index.js');
    const now = Date.parse('2026-01-02T03:04:05Z');
    expect(timestampAge('2026-01-02T03:01:35Z', now)).toBe('2m30s');
    expect(timestampAge('2025-12-31T03:04:05Z', now)).toBe('2d');
    expect(timestampAge(undefined, now)).toBe('<unknown>');
    expect(timestampAge('yesterday', now)).toBe('<unknown>');
  });
});
