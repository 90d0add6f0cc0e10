export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface EventuallyOptions {
  /** How long to keep polling; default 15 s. */
  readonly timeoutMs?: number;
  /** What is awaited, for the timeout error ("<message> not met in time"). */
  readonly message?: string;
  /** The pause between probes; default 25 ms. */
  readonly intervalMs?: number;
}

/** What `eventually` resolves with: the probe's value once it is neither undefined, null nor false. */
export type Settled<T> = Exclude<T, false | null | undefined>;

/**
 * Polls `probe` until it returns a value other than undefined, null or false, and resolves with it.
 * A probe that throws is polled again; after `timeoutMs` the error names `message` and the last
 * error thrown, so a timed-out wait says what it last saw.
 */
export async function eventually<T>(probe: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<Settled<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value as Settled<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`${options.message ?? 'condition'} not met in time${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await sleep(options.intervalMs ?? 25);
  }
}
