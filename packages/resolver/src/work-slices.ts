/**
 * Long work written once and run either straight through or in slices that give the event loop
 * back between them (see docs/decisions/0007-bounded-resolution-in-slices.md). The work
 * is a generator that asks its `Pacer` at each checkpoint whether its slice is used up and, if so,
 * yields; the driver decides what a yield means.
 */
export type Steps<T> = Generator<void, T, void>;

/** Tells work at its checkpoints whether the current slice is used up (then it should `yield`). */
export class Pacer {
  private sliceStart = performance.now();

  /** `sliceMs` Infinity: never pause (the work runs straight through). */
  constructor(private readonly sliceMs: number) {}

  isDue(): boolean {
    return this.sliceMs !== Infinity && performance.now() - this.sliceStart >= this.sliceMs;
  }

  startSlice(): void {
    this.sliceStart = performance.now();
  }
}

/** A pacer that never pauses. */
export const straightThrough = new Pacer(Infinity);

/** Runs `steps` to the end at once. */
export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Runs `steps`, giving the event loop a turn (I/O, timers, other work) whenever it yields. When
 * `signal` aborts, the work is closed (its `finally` blocks run) and the signal's reason is thrown.
 */
export async function runInSlices<T>(steps: Steps<T>, pacer: Pacer, signal?: AbortSignal): Promise<T> {
  for (;;) {
    signal?.throwIfAborted();
    pacer.startSlice();
    const next = steps.next();
    if (next.done) return next.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal?.aborted) {
      steps.return(undefined as T);
      throw signal.reason;
    }
  }
}
