/** Stable codes of the errors this package throws (`OLM_<AREA>_<WHAT>`). */
export const ApiErrorCodes = {
  /** The object's apiVersion/kind is not an operators.coreos.com kind this package knows. */
  unknownResource: 'OLM_API_UNKNOWN_RESOURCE',
} as const;

export type ApiErrorCode = (typeof ApiErrorCodes)[keyof typeof ApiErrorCodes];

/**
 * Error with a stable `code`, recognised by code (works with `hasErrorCode` from `@olm/core`); this package
 * does not depend on the kernel, so it is not an `OlmError` instance.
 */
export class ApiError extends Error {
  readonly code: ApiErrorCode;

  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}
