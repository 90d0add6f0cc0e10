/** Exponential backoff with a cap and optional jitter: base, base·factor, base·factor², … up to max. */
export interface BackoffOptions {
  /** First delay in milliseconds. Default 100. */
  readonly initialMs?: number;
  /** Largest delay in milliseconds. Default 30 000. */
  readonly maxMs?: number;
  /** Growth per step. Default 2. */
  readonly factor?: number;
  /** Adds up to this fraction of the delay at random, so restarts of many informers spread out. Default 0. */
  readonly jitter?: number;
}

export class Backoff {
  private attempts = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 100;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 0;
  }

  /** The delay before the next attempt; each call grows the following one. */
  next(): number {
    const delay = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempts);
    this.attempts += 1;
    return Math.min(this.maxMs, delay + delay * this.jitter * Math.random());
  }

  reset(): void {
    this.attempts = 0;
  }

  get attemptCount(): number {
    return this.attempts;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
