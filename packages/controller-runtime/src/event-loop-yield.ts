/**
 * Synchronous work gets this long before it gives the event loop a turn. A reconcile that needs no
 * API call resolves at once, so a worker draining a long queue would otherwise never let timers
 * (lease renewal), sockets (watches, /healthz, /metrics) or other controllers run.
 */
export const eventLoopSliceMs = 5;

let sliceStartedAt = performance.now();

/**
 * Resolves after a `setImmediate` turn once the current slice of synchronous work (shared by every
 * caller in the process) is used up; otherwise at once. Call it between units of work.
 */
export function yieldToEventLoop(): Promise<void> | undefined {
  if (performance.now() - sliceStartedAt < eventLoopSliceMs) return undefined;
  return new Promise((resolve) =>
    setImmediate(() => {
      sliceStartedAt = performance.now();
      resolve();
    }),
  );
}
