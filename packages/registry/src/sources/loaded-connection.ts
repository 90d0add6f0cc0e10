import type { CatalogConnection, CatalogContent, ConnectionState } from '@olm/core';

/**
 * A connection to a catalog read in-process (a directory, a ConfigMap): IDLE until the first
 * load, READY after a load that worked, TRANSIENT_FAILURE after one that failed (retrying may help).
 */
export function createLoadedConnection(load: () => Promise<CatalogContent>): CatalogConnection {
  let state: ConnectionState = 'IDLE';
  let closed = false;
  return {
    async load() {
      if (closed) throw new Error('catalog connection is closed');
      state = 'CONNECTING';
      try {
        const content = await load();
        state = closed ? 'SHUTDOWN' : 'READY';
        return content;
      } catch (error) {
        state = closed ? 'SHUTDOWN' : 'TRANSIENT_FAILURE';
        throw error;
      }
    },
    state: () => state,
    async close() {
      closed = true;
      state = 'SHUTDOWN';
    },
  };
}
