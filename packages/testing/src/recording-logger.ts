import type { LogFields, Logger } from '@olm/core';

export interface LoggedWarning {
  readonly message: string;
  readonly fields?: LogFields;
}

/** A logger that keeps every warning and error (in `warnings`, in order) and drops the rest. */
export function recordingLogger(): { readonly logger: Logger; readonly warnings: LoggedWarning[] } {
  const warnings: LoggedWarning[] = [];
  const record = (message: string, fields?: LogFields) => void warnings.push({ message, ...(fields ? { fields } : {}) });
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn: record, error: record, child: () => logger };
  return { logger, warnings };
}

/** With OLM_TEST_LOG=1, a logger printing warnings and errors to the console (for debugging a test); else undefined. */
export function consoleLoggerIfRequested(): Logger | undefined {
  if (!process.env['OLM_TEST_LOG']) return undefined;
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => console.warn(message, JSON.stringify(fields)),
    error: (message, fields) => console.error(message, JSON.stringify(fields)),
    child: () => logger,
  };
  return logger;
}
