import type { CachedObject, ObjectReader } from '@olm/core';
import { hasErrorCode } from '@olm/core';
import { apiStatusCode, RuntimeErrorCodes } from './errors.js';

/** kube's `v1.NamespaceTerminatingCause`: the cause of the 403 for content created in a terminating namespace. */
export const namespaceTerminatingCause = 'NamespaceTerminating';

/**
 * Whether a Namespace is being deleted (`metadata.deletionTimestamp`, or `status.phase: Terminating`).
 * Controllers leave such a namespace alone: kube refuses new content in it, and a write of the
 * namespace itself makes the namespace controller's own update conflict and retry, slowing the delete.
 */
export function isTerminatingNamespace(namespace: CachedObject | undefined): boolean {
  if (!namespace) return false;
  return namespace.metadata?.['deletionTimestamp'] !== undefined || (namespace.status as { phase?: unknown } | undefined)?.phase === 'Terminating';
}

/** Whether the cache knows namespace `name` as terminating (false when it does not hold it, or caches no Namespaces). */
export function isNamespaceTerminating(cache: ObjectReader, name: string | undefined): boolean {
  if (!name) return false;
  try {
    return isTerminatingNamespace(cache.get({ apiVersion: 'v1', kind: 'Namespace' }, name));
  } catch (error) {
    if (hasErrorCode(error, RuntimeErrorCodes.kindNotCached)) return false;
    throw error;
  }
}

/**
 * Whether an error is kube's refusal to create content in a terminating namespace: 403 Forbidden,
 * "unable to create new content in namespace X because it is being terminated", with the cause
 * `NamespaceTerminating`. Retrying cannot help; the namespace is going.
 */
export function isNamespaceTerminatingError(error: unknown): boolean {
  if (apiStatusCode(error) !== 403) return false;
  const status = (error as { details?: { status?: { details?: { causes?: unknown } } } }).details?.status;
  const causes = status?.details?.causes;
  return Array.isArray(causes) && causes.some((cause) => (cause as { reason?: unknown } | null)?.reason === namespaceTerminatingCause);
}
