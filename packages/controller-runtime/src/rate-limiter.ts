/**
 * Decides how long a key waits before it is retried. `when` records a failure and returns the
 * delay; `forget` clears the key's history once it succeeds.
 */
export interface RateLimiter {
  when(key: string): number;
  forget(key: string): void;
  /** Failures recorded for the key since it was last forgotten. */
  retries(key: string): number;
}

/** Per-key exponential backoff: base, 2·base, 4·base, … capped at max. */
export class ExponentialRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 300_000,
  ) {}

  when(key: string): number {
    const count = this.failures.get(key) ?? 0;
    this.failures.set(key, count + 1);
    // 2 ** 60 is already far past any cap; clamping the exponent avoids Infinity arithmetic.
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(count, 60));
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * A global token bucket shared by all keys: `burst` retries at once, then `qps` per second.
 * Each call reserves a token, possibly in the future, and returns the wait until it is due.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps = 10,
    private readonly burst = 100,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  when(): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(): void {}

  retries(): number {
    return 0;
  }
}

/** The longest wait of several limiters: per-key backoff and a global bucket together. */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    let delay = 0;
    for (const limiter of this.limiters) delay = Math.max(delay, limiter.when(key));
    return delay;
  }

  forget(key: string): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  retries(key: string): number {
    let count = 0;
    for (const limiter of this.limiters) count = Math.max(count, limiter.retries(key));
    return count;
  }
}

export interface DefaultRateLimiterOptions {
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly qps?: number;
  readonly burst?: number;
}

/** Per-key backoff from 5 ms to 5 min, and at most 10 retries/s overall after a burst of 100. */
export function createDefaultRateLimiter(options: DefaultRateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(
    new ExponentialRateLimiter(options.baseDelayMs ?? 5, options.maxDelayMs ?? 300_000),
    new TokenBucketRateLimiter(options.qps ?? 10, options.burst ?? 100),
  );
}
