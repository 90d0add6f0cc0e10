import { describeError, hasErrorCode, OlmError } from '@olm/core';

/** Stable codes of the errors this package throws; recognise them with `hasErrorCode`, never `instanceof`. */
export const RuntimeErrorCodes = {
  /** A reconcile failed in a way retrying cannot fix; the key is not requeued. */
  terminal: 'OLM_RUNTIME_TERMINAL',
  /** The API server answered with an error status (`details.statusCode`, `details.reason`). */
  kubeApi: 'OLM_RUNTIME_KUBE_API',
  /** The API server could not be reached (connection refused, reset, DNS, TLS). */
  kubeUnreachable: 'OLM_RUNTIME_KUBE_UNREACHABLE',
  /** Discovery does not know the kind (no CRD installed for it yet?). */
  unknownKind: 'OLM_RUNTIME_UNKNOWN_KIND',
  /** The kubeconfig could not be loaded or has no current cluster. */
  invalidKubeconfig: 'OLM_RUNTIME_INVALID_KUBECONFIG',
  /** A cache read for a kind no informer watches. */
  kindNotCached: 'OLM_RUNTIME_KIND_NOT_CACHED',
  /** A conflict-retrying update still conflicted after its last attempt. */
  conflictRetriesExhausted: 'OLM_RUNTIME_CONFLICT_RETRIES_EXHAUSTED',
  /** Invalid options or input (bad label selector, duplicate controller name, …). */
  invalidArgument: 'OLM_RUNTIME_INVALID_ARGUMENT',
  /** The manager was used in a state that does not allow it (started twice, stopped). */
  invalidState: 'OLM_RUNTIME_INVALID_STATE',
  /** Caches did not sync before the deadline. */
  cacheSyncTimeout: 'OLM_RUNTIME_CACHE_SYNC_TIMEOUT',
} as const;

/**
 * Thrown by a reconciler when retrying cannot help (invalid spec, unsupported strategy). The
 * controller counts it as an error but does not requeue the key; the next change to the object
 * reconciles it again. Recognised by its code, so a copy from another package version works too.
 */
export class TerminalError extends OlmError {
  constructor(message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(RuntimeErrorCodes.terminal, message, options);
    this.name = 'TerminalError';
  }
}

export function isTerminalError(error: unknown): boolean {
  return hasErrorCode(error, RuntimeErrorCodes.terminal);
}

/** The HTTP status of a failed API call: from our errors, client-node's `ApiException`, or a watch error. */
export function apiStatusCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as { details?: { statusCode?: unknown }; code?: unknown; statusCode?: unknown };
  if (typeof candidate.details?.statusCode === 'number') return candidate.details.statusCode;
  if (typeof candidate.statusCode === 'number') return candidate.statusCode;
  if (typeof candidate.code === 'number') return candidate.code;
  return undefined;
}

export const isNotFound = (error: unknown): boolean => apiStatusCode(error) === 404;
export const isConflict = (error: unknown): boolean =>
  apiStatusCode(error) === 409 && apiStatusReason(error) !== 'AlreadyExists';
export const isAlreadyExists = (error: unknown): boolean =>
  apiStatusCode(error) === 409 && apiStatusReason(error) === 'AlreadyExists';
export const isGone = (error: unknown): boolean => apiStatusCode(error) === 410;

/** The `reason` of a failed API call's Status (`Conflict`, `AlreadyExists`, `NotFound`, `Expired`). */
export function apiStatusReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const reason = (error as { details?: { reason?: unknown } }).details?.reason;
  if (typeof reason === 'string') return reason;
  const body = (error as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as { reason?: unknown };
      return typeof parsed.reason === 'string' ? parsed.reason : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The API server's own words for a failed call: the `message` of its Status (`configmaps "c" is
 * forbidden: User "u" cannot get …`), as client-go's errors print it; for anything else the error's text.
 */
export function apiStatusMessage(error: unknown): string {
  const status = (error as { details?: { status?: unknown } } | null | undefined)?.details?.status;
  const message = typeof status === 'object' && status !== null ? (status as { message?: unknown }).message : undefined;
  if (typeof message === 'string' && message !== '') return message;
  return describeError(error);
}
