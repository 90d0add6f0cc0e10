import { OlmError } from '@olm/core';

/** Stable error codes of this package. Recognise them with `hasErrorCode` from `@olm/core`. */
export const CelErrorCodes = {
  /** The `cel` constraint value has the wrong shape: not an object, unknown field, missing or empty `rule`. */
  invalidConstraint: 'OLM_CEL_INVALID_CONSTRAINT',
  /** The rule does not parse, does not type-check, or does not have type bool. */
  invalidRule: 'OLM_CEL_INVALID_RULE',
  /** The rule exceeds a configured safety limit (length, AST size, nesting, …). */
  limitExceeded: 'OLM_CEL_LIMIT_EXCEEDED',
  /** An option passed to `createCelConstraintEvaluator` is invalid (unknown limit, non-positive value). */
  invalidOptions: 'OLM_CEL_INVALID_OPTIONS',
} as const;

export type CelErrorCode = (typeof CelErrorCodes)[keyof typeof CelErrorCodes];

export function invalidConstraint(message: string, details: Record<string, unknown> = {}): OlmError {
  return new OlmError(CelErrorCodes.invalidConstraint, message, { details });
}

export function invalidRule(message: string, rule: string, cause?: unknown): OlmError {
  return new OlmError(CelErrorCodes.invalidRule, message, { cause, details: { rule } });
}

/** `limit` names the option to raise (`maxRuleBytes`, …); `fix` replaces the default advice. */
export function limitExceeded(limit: string, message: string, rule: string, cause?: unknown, fix?: string): OlmError {
  const advice = fix ?? `simplify the rule, or raise ${limit} in the plugin-cel options if the rule is trusted`;
  return new OlmError(CelErrorCodes.limitExceeded, `${message} (limit ${limit}; ${advice})`, {
    cause,
    details: { rule, limit },
  });
}
