import type { CatalogControllerContext } from '../controller-context.js';

/**
 * What a namespace pass needs: resolution (the resolver, RBAC generator, bundle puller, catalogs) and the
 * InstallPlan and Subscription writes it ends with.
 */
export type ResolutionDeps = Pick<
  CatalogControllerContext,
  'client' | 'events' | 'metrics' | 'logger' | 'now' | 'fieldManager' | 'resolver' | 'rbacGenerator' | 'bundlePuller' | 'sourceTypes' | 'connections' | 'catalogEvents' | 'reconciledCatalogSources' | 'globalCatalogNamespace' | 'unhealthyRetryMs' | 'bundleUnpackPollMs' | 'installPlanRetryTimeoutMs' | 'installingRequeueMs' | 'onStepApplied'
>;
