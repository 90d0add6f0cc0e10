/** Stable codes of the errors this library throws (`OLM_<AREA>_<WHAT>`). */
export const SchemaErrorCodes = {
  /** The schema cannot be compiled into a validator (wrong keyword value, bad regular expression, …). */
  invalid: 'OLM_SCHEMA_INVALID',
} as const;

export type SchemaErrorCode = (typeof SchemaErrorCodes)[keyof typeof SchemaErrorCodes];

/**
 * Thrown only for schemas that cannot be used at all; bad objects never throw, they yield `FieldError`s.
 * Recognise it by `code` (this package does not depend on `@olm/core`, so it is not an `OlmError`,
 * but it follows the same convention and works with `hasErrorCode`).
 */
export class SchemaError extends Error {
  readonly code: SchemaErrorCode;
  /** Where in the schema the problem is (Kubernetes field-path style), when known. */
  readonly path: string | undefined;

  constructor(code: SchemaErrorCode, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SchemaError';
    this.code = code;
    this.path = options.path;
  }
}
