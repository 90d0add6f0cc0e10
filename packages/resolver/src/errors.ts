import { ConstraintErrorCodes, OlmError } from '@olm/core';

export const ResolverErrorCodes = {
  /** No set of operators satisfies every constraint; `details.constraints` lists a minimal conflicting set. */
  unsatisfiable: 'OLM_RESOLVER_UNSATISFIABLE',
  /** The input cannot be resolved as given (bad constraint property, broken channel, duplicate id…). */
  invalidInput: 'OLM_RESOLVER_INVALID_INPUT',
  /**
   * The resolution used up its budget (`ResolutionLimits`, named by `details.budget`): constraint evaluation (the
   * message names the bundle that spent the most and its costliest constraint), SAT calls, or one SAT call's
   * conflicts. Deterministic: retrying the same input fails again.
   */
  budgetExhausted: ConstraintErrorCodes.budgetExhausted,
  /** An option of `createResolver` is invalid (an unknown limit, a limit that is not a positive integer). */
  invalidOptions: 'OLM_RESOLVER_INVALID_OPTIONS',
} as const;

export function invalidInput(message: string, details: Record<string, unknown> = {}, cause?: unknown): OlmError {
  return new OlmError(ResolverErrorCodes.invalidInput, message, { details, cause });
}

/** Formats several errors as upstream's aggregate does: one message alone, or `[a, b]`. */
export function aggregateMessage(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}
