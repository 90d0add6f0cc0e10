import { join } from 'node:path';
import type { CatalogConnection, CatalogSourceType, ConnectionState } from '@olm/core';
import { loadCatalog } from '@olm/registry';

/** The `spec.sourceType` this package adds. */
export const CATALOG_STORE_SOURCE_TYPE = 'catalog-store';

export interface CatalogStoreOptions {
  /** The store: the catalog of CatalogSource `<namespace>/<name>` is the file-based catalog directory `<root>/<namespace>/<name>`. */
  readonly root: string;
}

const dnsName = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * `sourceType: catalog-store`: a platform team keeps every catalog in one directory tree, one
 * file-based catalog per CatalogSource, so a CatalogSource needs no address. Each `load()` re-reads the directory.
 */
export function createCatalogStoreSourceType(options: CatalogStoreOptions): CatalogSourceType {
  return {
    sourceType: CATALOG_STORE_SOURCE_TYPE,
    async open(request): Promise<CatalogConnection> {
      // The names come from the cluster; a name that is not a DNS name must not reach outside the store.
      for (const [field, value] of [['metadata.namespace', request.namespace], ['metadata.name', request.name]] as const) {
        if (!dnsName.test(value)) {
          throw new Error(`CatalogSource ${request.namespace}/${request.name}: ${field} ${JSON.stringify(value)} is not a DNS name, so it names no catalog in the store`);
        }
      }
      const directory = join(options.root, request.namespace, request.name);
      let state: ConnectionState = 'IDLE';
      let closed = false;
      return {
        async load() {
          if (closed) throw new Error(`the catalog-store connection of ${request.namespace}/${request.name} is closed`);
          try {
            const catalog = await loadCatalog(directory);
            state = 'READY';
            return catalog;
          } catch (error) {
            state = 'TRANSIENT_FAILURE';
            throw new Error(`CatalogSource ${request.namespace}/${request.name}: cannot read its catalog ${directory} in the catalog store: ${(error as Error).message}`, { cause: error });
          }
        },
        state: () => (closed ? 'SHUTDOWN' : state),
        async close() {
          closed = true;
        },
      };
    },
  };
}
