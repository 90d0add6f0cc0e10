import type { Logger } from '@olm/core';

/** A logger that drops everything: the default when none is given. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
