/** Stable codes of the errors this package throws (`OLM_<AREA>_<WHAT>`). */
export const OperatorsResourceErrorCodes = {
  /** The object's apiVersion/kind is not an operators.coreos.com kind this package knows. */
  unknownResource: 'OLM_API_UNKNOWN_RESOURCE',
} as const;

export type OperatorsResourceErrorCode = (typeof OperatorsResourceErrorCodes)[keyof typeof OperatorsResourceErrorCodes];

/**
 * An object this package cannot treat as an `operators.coreos.com` resource, with a stable `code`,
 * recognised by code (works with `hasErrorCode` from `@olm/core`); this package does not depend on
 * the kernel, so it is not an `OlmError` instance.
 */
export class OperatorsResourceError extends Error {
  readonly code: OperatorsResourceErrorCode;

  constructor(code: OperatorsResourceErrorCode, message: string) {
    super(message);
    this.name = 'OperatorsResourceError';
    this.code = code;
  }
}
