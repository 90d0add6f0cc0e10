import type { CatalogControllerContext } from '../controller-context.js';

/**
 * What the CatalogSource concern needs: the client, the connections and source types, the catalog events it tells,
 * the record of reconciled sources resolution waits on, and its timings.
 */
export type CatalogSourceDeps = Pick<
  CatalogControllerContext,
  'client' | 'connections' | 'sourceTypes' | 'catalogEvents' | 'reconciledCatalogSources' | 'imageSignatureVerifier' | 'metrics' | 'logger' | 'now' | 'fieldManager' | 'healthCheckIntervalMs' | 'unhealthyRetryMs'
>;
