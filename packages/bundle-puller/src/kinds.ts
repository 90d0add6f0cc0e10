import type { CachedObject } from '@olm/core';

/** The kinds the puller reads and writes (ConfigMaps, Secrets, ServiceAccounts) and the CatalogSource its ConfigMaps belong to: @olm/api's table. */
export { Kinds } from '@olm/api';

/** A ConfigMap or Secret as read: string data by key. */
export type DataObject = CachedObject & { readonly type?: string; readonly data?: Record<string, string> };
