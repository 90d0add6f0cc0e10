import type { CatalogSource } from '@olm/api';
import type { CachedObject } from '@olm/core';

/** A CatalogSource as the catalog operator or the packageserver read it. */
export type CatalogSourceObject = CatalogSource & CachedObject;

/**
 * The one narrowing of this package's workloads: they are handed the CatalogSource their caller read
 * (core's contract speaks of plain objects), whose schema the API server enforces through OLM's CRD.
 */
export function catalogSourceOf(object: CachedObject): CatalogSourceObject {
  return object as CatalogSourceObject;
}

export function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
