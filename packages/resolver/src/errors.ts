import { OlmError } from '@olm/core';

export const ResolverErrorCodes = {
  /** No set of operators satisfies every constraint; `details.constraints` lists a minimal conflicting set. */
  unsatisfiable: 'OLM_RESOLVER_UNSATISFIABLE',
  /** The input cannot be resolved as given (bad constraint property, broken channel, duplicate id…). */
  invalidInput: 'OLM_RESOLVER_INVALID_INPUT',
} as const;

export function invalidInput(message: string, details: Record<string, unknown> = {}, cause?: unknown): OlmError {
  return new OlmError(ResolverErrorCodes.invalidInput, message, { details, cause });
}

/** Formats several errors as upstream's aggregate does: one message alone, or `[a, b]`. */
export function aggregateMessage(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}
