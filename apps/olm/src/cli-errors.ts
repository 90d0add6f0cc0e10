import { OlmError } from '@olm/core';

/** Exit codes used by every command: 0 ok, 1 the checked thing is invalid or failed, 2 bad usage or input. */
export const ExitCode = { ok: 0, failed: 1, usage: 2 } as const;

const USAGE_CODES = new Set(['OLM_CLI_USAGE', 'OLM_CLI_INPUT']);

/** Bad flags or arguments: exit 2. */
export function usageError(message: string): OlmError {
  return new OlmError('OLM_CLI_USAGE', message);
}

/** Input that cannot be read or parsed (a missing file, bad YAML): exit 2. */
export function inputError(message: string, cause?: unknown): OlmError {
  return new OlmError('OLM_CLI_INPUT', message, { cause });
}

export function exitCodeFor(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (USAGE_CODES.has(code) || code.endsWith('_INPUT') || code.endsWith('_USAGE'))) {
    return ExitCode.usage;
  }
  return ExitCode.failed;
}
