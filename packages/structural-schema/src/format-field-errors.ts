import type { FieldError } from './json-schema-props.js';

/** One error as Kubernetes prints it: `spec.size: Invalid value: …`. */
export function formatFieldError(error: FieldError): string {
  return error.field === '' ? error.message : `${error.field}: ${error.message}`;
}

/**
 * The message of a 422 Invalid status, as the API server words it:
 * `Widget.example.com "w1" is invalid: spec.size: Invalid value: …`, several errors in brackets
 * (`is invalid: [spec.a: …, spec.b: …]`). `kind` is the group-qualified kind (`Widget.example.com`).
 */
export function formatFieldErrors(kind: string, name: string, errors: readonly FieldError[]): string {
  const head = `${kind} ${JSON.stringify(name)} is invalid`;
  if (errors.length === 0) return head;
  const parts = errors.map(formatFieldError);
  return `${head}: ${parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`}`;
}
