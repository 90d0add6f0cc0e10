import { describe, expect, it } from 'vitest';
import {
  createDefaultRateLimiter,
  ExponentialRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
} from './rate-limiter.js';

describe('ExponentialRateLimiter', () => {
  it('doubles per failure of one key up to the cap, and forget resets it', () => {
    const limiter = new ExponentialRateLimiter(10, 100);
    expect([1, 2, 3, 4, 5].map(() => limiter.when('a'))).toEqual([10, 20, 40, 80, 100]);
    expect(limiter.retries('a')).toBe(5);
    expect(limiter.when('b')).toBe(10);
    limiter.forget('a');
    expect(limiter.retries('a')).toBe(0);
    expect(limiter.when('a')).toBe(10);
  });

  it('stays finite after very many failures', () => {
    const limiter = new ExponentialRateLimiter(5, 1000);
    for (let i = 0; i < 5000; i += 1) limiter.when('k');
    expect(limiter.when('k')).toBe(1000);
  });
});

describe('TokenBucketRateLimiter', () => {
  it('allows a burst at once, then spaces calls by 1/qps, and refills with time', () => {
    let now = 0;
    const limiter = new TokenBucketRateLimiter(10, 3, () => now);
    expect([limiter.when(), limiter.when(), limiter.when()]).toEqual([0, 0, 0]);
    expect(limiter.when()).toBeCloseTo(100);
    expect(limiter.when()).toBeCloseTo(200);
    now = 1000; // 10 tokens refilled, capped at the burst of 3, minus the 2 reserved
    expect(limiter.when()).toBe(0);
  });
});

describe('MaxOfRateLimiter', () => {
  it('waits the longest of its limiters and forgets in all', () => {
    let now = 0;
    const limiter = new MaxOfRateLimiter(new ExponentialRateLimiter(1, 1000), new TokenBucketRateLimiter(1, 1, () => now));
    expect(limiter.when('a')).toBe(1);
    expect(limiter.when('a')).toBeCloseTo(1000); // bucket empty: 1 s at 1 qps
    expect(limiter.retries('a')).toBe(2);
    limiter.forget('a');
    expect(limiter.retries('a')).toBe(0);
    now = 10_000;
    expect(limiter.when('a')).toBe(1);
  });

  it('the default limiter starts small', () => {
    const limiter = createDefaultRateLimiter();
    expect(limiter.when('x')).toBe(5);
    expect(limiter.when('x')).toBe(10);
  });
});
