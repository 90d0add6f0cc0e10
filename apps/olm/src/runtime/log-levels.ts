// Apart from logger.ts so that command options list the levels without loading pino.
export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];
