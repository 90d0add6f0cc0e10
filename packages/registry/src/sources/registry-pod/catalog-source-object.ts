import type { CachedObject } from '@olm/core';

export { Kinds } from '@olm/api';
export { asString, type CatalogSourceObject } from '../catalog-source-of.js';

/** A plain-JSON object of a kind @olm/api does not model (Pods, Services, ServiceAccounts). */
export type AnyObject = CachedObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };
