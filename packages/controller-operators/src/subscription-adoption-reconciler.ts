import type { CachedObject, ObjectReader, ReconcileRequest, Reconciler } from '@olm/core';
import { Kinds } from './component-kinds.js';
import { componentLabelKey, invalidOperatorName, operatorNameFor } from './component-labels.js';
import { adopt, disown } from './components.js';
import { isCopiedCsv } from './csv-adoption-reconciler.js';
import type { Shared } from './shared.js';

/**
 * Adoption of what a Subscription installed (upstream `adoption_controller.go`, `ReconcileSubscription`):
 * the Subscription, its installed CSV and its latest InstallPlan get the component label of the
 * Operator `<package>.<namespace>`; older InstallPlans of the namespace lose it. The Operator itself
 * is made by the `operator` reconciler once a labelled component exists.
 */
export function createSubscriptionAdoptionReconciler(shared: Shared): Reconciler {
  const subscriptionsIn = (object: CachedObject, cache: ObjectReader): ReconcileRequest[] => {
    const namespace = object.metadata?.namespace ?? '';
    return cache.list(Kinds.subscription, { namespace }).map((subscription) => ({ namespace, name: subscription.metadata?.name ?? '' }));
  };
  return {
    name: 'adoption-subscription',
    for: Kinds.subscription,
    // Installing, upgrading and planning change which CSV and InstallPlan a Subscription points at.
    watches: [
      { ...Kinds.csv, map: subscriptionsIn },
      { ...Kinds.installPlan, map: subscriptionsIn },
    ],
    async reconcile({ namespace = '', name }, { cache, logger }) {
      const subscription = cache.get(Kinds.subscription, name, namespace);
      const packageName = subscription?.spec?.name;
      if (!subscription || typeof packageName !== 'string' || packageName === '') return;
      const operator = operatorNameFor(packageName, namespace);
      const problem = invalidOperatorName(operator);
      if (problem) {
        logger.warn('subscription not adopted into an Operator', { subscription: `${namespace}/${name}`, problem });
        return;
      }
      const client = shared.client();
      await adopt(client, Kinds.subscription, subscription, operator);

      const installed = subscription.status?.installedCSV;
      const csv = installed ? cache.get(Kinds.csv, installed, namespace) : undefined;
      if (csv && !isCopiedCsv(csv)) await adopt(client, Kinds.csv, csv, operator);

      const planName = subscription.status?.installPlanRef?.name;
      if (!planName) return;
      const planNamespace = subscription.status?.installPlanRef?.namespace || namespace;
      const plan = cache.get(Kinds.installPlan, planName, planNamespace);
      if (plan) await adopt(client, Kinds.installPlan, plan, operator);
      for (const older of cache.list(Kinds.installPlan, { namespace: planNamespace, labelSelector: componentLabelKey(operator) })) {
        if (older.metadata?.name !== planName) await disown(client, Kinds.installPlan, older, operator);
      }
    },
  };
}
