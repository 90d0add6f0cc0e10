import { writeBuiltin } from './go-json.js';

/**
 * Kubernetes `Status` errors. Every failed request is answered with one of these, with the
 * reason, code and message wording of kube-apiserver so that clients branch on them as usual.
 */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): Record<string, unknown> {
    return statusBody(this.code, this.reason, this.message, this.details);
  }
}

export function statusBody(code: number, reason: string, message: string, details?: StatusDetails): Record<string, unknown> {
  // Written as Go's Status struct: field order, empty details fields dropped.
  return writeBuiltin('Status', { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, details, code });
}

/** What a resource is called in messages: `configmaps` or `widgets.example.com`. */
export interface ResourceName {
  readonly group: string;
  readonly plural: string;
}

export function qualifiedResource(resource: ResourceName): string {
  return resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;
}

export function notFound(resource: ResourceName, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(resource)} "${name}" not found`, {
    name,
    group: resource.group,
    kind: resource.plural,
  });
}

export function pathNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(resource: ResourceName, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualifiedResource(resource)} "${name}" already exists`, {
    name,
    group: resource.group,
    kind: resource.plural,
  });
}

export function conflict(resource: ResourceName, name: string, reason: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": ${reason}`, {
    name,
    group: resource.group,
    kind: resource.plural,
  });
}

export const optimisticLockMessage =
  'the object has been modified; please apply your changes to the latest version and try again';

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function forbidden(message: string, details?: StatusDetails): StatusError {
  return new StatusError(403, 'Forbidden', message, details);
}

export function methodNotAllowed(message: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', message);
}

export function unsupportedMediaType(message: string): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', message);
}

export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

/**
 * One field problem, shaped like a Kubernetes `field.Error`; `message` starts with the cause words:
 * `Invalid value: "x": must be ...`, `Required value: ...`, `Forbidden: ...`.
 */
export interface FieldProblem {
  readonly field: string;
  /** Kubernetes `CauseType`: `FieldValueInvalid`, `FieldValueRequired`, `FieldValueForbidden`, ... */
  readonly reason: string;
  readonly message: string;
}

export function formatFieldProblem(problem: FieldProblem): string {
  return problem.field === '' ? problem.message : `${problem.field}: ${problem.message}`;
}

/**
 * 422 Invalid: `Widget.example.com "w1" is invalid: spec.size: Invalid value: ...`.
 * `qualifiedKind` is `Kind` for the core group and `Kind.group` elsewhere.
 */
export function invalid(resource: ResourceName, qualifiedKind: string, name: string, problems: readonly FieldProblem[]): StatusError {
  const rendered = problems.map(formatFieldProblem);
  const summary = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name,
    group: resource.group,
    kind: qualifiedKind.split('.')[0] ?? qualifiedKind,
    causes: problems.map((problem) => ({ reason: problem.reason, message: problem.message, field: problem.field })),
  });
}
