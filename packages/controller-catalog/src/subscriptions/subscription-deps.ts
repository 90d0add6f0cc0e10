import type { CatalogControllerContext } from '../controller-context.js';

/**
 * What the Subscription concern needs: the client, the catalogs' cached content, metrics, and the global catalog namespace.
 */
export type SubscriptionDeps = Pick<
  CatalogControllerContext,
  'client' | 'connections' | 'metrics' | 'now' | 'fieldManager' | 'globalCatalogNamespace'
>;
