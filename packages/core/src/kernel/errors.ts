/**
 * Errors across OLM packages carry a stable `code` (`OLM_<AREA>_<WHAT>`). Callers recognise them
 * by code, never by `instanceof`: two copies of a package may be installed side by side.
 */
export class OlmError extends Error {
  readonly code: string;
  /** Further machine-readable facts (the problems of a failed boot, the field of a bad input, …). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OlmError';
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** True when `error` carries `code` (or, without `code`, any `OLM_*` code). Works across package copies. */
export function hasErrorCode(error: unknown, code?: string): error is OlmError {
  if (typeof error !== 'object' || error === null) return false;
  const actual = (error as { code?: unknown }).code;
  if (typeof actual !== 'string') return false;
  return code === undefined ? actual.startsWith('OLM_') : actual === code;
}

/** Turns anything thrown (strings included: some libraries throw them) into a readable message. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

export const KernelErrorCodes = {
  bootFailed: 'OLM_KERNEL_BOOT_FAILED',
  duplicatePlugin: 'OLM_KERNEL_DUPLICATE_PLUGIN',
  missingDependency: 'OLM_KERNEL_MISSING_DEPENDENCY',
  versionMismatch: 'OLM_KERNEL_VERSION_MISMATCH',
  dependencyCycle: 'OLM_KERNEL_DEPENDENCY_CYCLE',
  duplicateProvider: 'OLM_KERNEL_DUPLICATE_PROVIDER',
  missingExtension: 'OLM_KERNEL_MISSING_EXTENSION',
  invalidPlugin: 'OLM_KERNEL_INVALID_PLUGIN',
  initFailed: 'OLM_KERNEL_INIT_FAILED',
  startFailed: 'OLM_KERNEL_START_FAILED',
  stopFailed: 'OLM_KERNEL_STOP_FAILED',
  notProvided: 'OLM_KERNEL_NOT_PROVIDED',
} as const;
