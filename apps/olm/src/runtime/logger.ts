import type { LogFields, Logger } from '@olm/core';
import { pino, type Logger as PinoLogger } from 'pino';

import type { LogLevel } from './log-levels.js';

export type { LogLevel } from './log-levels.js';

/** The kernel's `logger` contract on pino: one JSON object per line, to stderr by default. */
export function createLogger(options: { readonly level: LogLevel; readonly destination?: NodeJS.WritableStream }): Logger {
  const base = pino(
    { level: options.level, base: { name: 'olm' }, timestamp: pino.stdTimeFunctions.isoTime },
    options.destination ?? process.stderr,
  );
  return adapt(base);
}

function adapt(logger: PinoLogger): Logger {
  const write = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields?: LogFields) =>
    fields ? logger[level](fields, message) : logger[level](message);
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (fields) => adapt(logger.child(fields)),
  };
}
