import type { CatalogControllerContext } from '../controller-context.js';

/**
 * What the InstallPlan concern needs: the client, events and metrics, and its timings.
 */
export type InstallPlanDeps = Pick<
  CatalogControllerContext,
  'client' | 'events' | 'metrics' | 'now' | 'fieldManager' | 'installPlanRetryTimeoutMs' | 'installingRequeueMs' | 'onStepApplied'
>;
