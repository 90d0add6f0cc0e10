import type { Logger } from '@olm/core';

/** A logger that drops everything: the default when none is given. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};

/**
 * A logger for components built before the kernel starts (a plugin's `register`) whose logger is
 * known only then: each call goes to `resolve()`'s logger once it gives one, and is dropped before.
 */
export function deferredLogger(resolve: () => Logger | undefined): Logger {
  let target: Logger | undefined;
  const current = (): Logger => (target ??= resolve()) ?? silentLogger;
  return {
    debug: (message, fields) => current().debug(message, fields),
    info: (message, fields) => current().info(message, fields),
    warn: (message, fields) => current().warn(message, fields),
    error: (message, fields) => current().error(message, fields),
    child: (fields) => deferredLogger(() => (target ??= resolve())?.child(fields)),
  };
}
