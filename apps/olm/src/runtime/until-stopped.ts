export interface StopConditions {
  /** Resolve at once (tests, smoke checks). */
  readonly exitAfterStart?: boolean;
  /** Resolve after this many milliseconds (tests). */
  readonly runFor?: number;
}

/** Resolves on SIGINT/SIGTERM, after `runFor` ms, or at once with `exitAfterStart`; says which. */
export function untilStopped(options: StopConditions): Promise<string> {
  if (options.exitAfterStart) return Promise.resolve('exit-after-start');
  return new Promise((resolveStop) => {
    const timer = options.runFor !== undefined ? setTimeout(() => finish('timeout'), options.runFor) : undefined;
    const onInterrupt = () => finish('SIGINT');
    const onTerminate = () => finish('SIGTERM');
    function finish(reason: string): void {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerminate);
      resolveStop(reason);
    }
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onTerminate);
  });
}
