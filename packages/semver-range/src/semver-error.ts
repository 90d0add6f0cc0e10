/** Stable error codes of this package (same `OLM_<AREA>_<WHAT>` convention as `@olm/core`). */
export const SemverErrorCodes = {
  invalidVersion: 'OLM_SEMVER_INVALID_VERSION',
  invalidRange: 'OLM_SEMVER_INVALID_RANGE',
} as const;

export type SemverErrorCode = (typeof SemverErrorCodes)[keyof typeof SemverErrorCodes];

/**
 * A version or range that blang/semver would reject. `message` is blang's message verbatim
 * (users compare it with `opm validate` output); `input` is the text that was parsed.
 * This package has no `@olm/core` dependency, so callers recognise it by `code`, not `instanceof`.
 */
export class SemverError extends Error {
  readonly code: SemverErrorCode;
  readonly input: string;

  constructor(code: SemverErrorCode, message: string, input: string) {
    super(message);
    this.name = 'SemverError';
    this.code = code;
    this.input = input;
  }
}
