import { describe, expect, it } from 'vitest';
import { Backoff, sleep } from './backoff.js';

describe('Backoff', () => {
  it('grows by the factor up to the cap and resets', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 1_000, factor: 3 });
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([100, 300, 900, 1_000]);
    expect(backoff.attemptCount).toBe(4);
    backoff.reset();
    expect(backoff.next()).toBe(100);
  });

  it('adds at most the jitter fraction, never past the cap', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 150, jitter: 0.5 });
    const first = backoff.next();
    expect(first).toBeGreaterThanOrEqual(100);
    expect(first).toBeLessThanOrEqual(150);
    for (let i = 0; i < 10; i += 1) expect(backoff.next()).toBeLessThanOrEqual(150);
  });
});

describe('sleep', () => {
  it('ends early when the signal aborts, and at once when already aborted', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const sleeping = sleep(10_000, abort.signal);
    setTimeout(() => abort.abort(), 10);
    await sleeping;
    await sleep(10_000, abort.signal);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
