import type { CachedObject, KubeClient, ObjectReader, Reconciler } from '@olm/core';
import { isNotFound, updateStatus } from '@olm/controller-runtime';
import type { SubscriptionDeps } from './subscription-deps.js';
import { asString, Kinds, nameOf, namespaceOf, type CatalogSourceObject, type InstallPlanObject } from '../kinds.js';
import type { LiveSubscription } from '../resolution/namespace-snapshot.js';
import { recordInstallHistory } from './subscription-history.js';
import { ownPartDiffers, withOwnPart } from './subscription-ownership.js';
import { catalogHealthOf, updateCatalogHealth, updateInstallPlanConditions, type SubscriptionStatus } from './subscription-status.js';

/**
 * The Subscription's own status (upstream's Subscription syncer with its catalog-health and install-plan-state
 * reconcilers), one Subscription per request: `CatalogSourcesUnhealthy` and `catalogHealth` over the catalogs of
 * its namespace and the global one, and `InstallPlanPending`/`InstallPlanFailed`/`InstallPlanMissing` from the
 * InstallPlan it references. Only that part of the status is written (see `subscription-ownership`), so it never
 * undoes what namespace resolution writes, and resolution never undoes it. It also keeps the Subscription's
 * install history annotation (`subscription-history`).
 */
export function createSubscriptionReconciler(context: SubscriptionDeps): Reconciler {
  const requestsOf = (subscriptions: readonly CachedObject[]) => subscriptions.map((sub) => ({ namespace: namespaceOf(sub), name: nameOf(sub) }));
  return {
    name: 'subscription',
    for: Kinds.subscription,
    maxConcurrentReconciles: 2,
    watches: [
      {
        ...Kinds.catalogSource,
        // A global catalog is seen by every Subscription; another one by those of its namespace.
        map: (source, cache) =>
          requestsOf(cache.list(Kinds.subscription, namespaceOf(source) === context.globalCatalogNamespace ? {} : { namespace: namespaceOf(source) })),
      },
      {
        ...Kinds.installPlan,
        map: (plan, cache) =>
          requestsOf(cache.list(Kinds.subscription, { namespace: namespaceOf(plan) }).filter((sub) => sub.status?.installPlanRef?.name === nameOf(plan))),
      },
    ],
    async reconcile({ namespace = '', name }, { cache }) {
      const cached = cache.get(Kinds.subscription, name, namespace);
      if (!cached) return;
      const client = context.client();
      await recordInstallHistory(client, cached, context.now(), context.fieldManager);
      const planName = cached.status?.installPlanRef?.name;
      const plan = planName ? await referencedPlan(client, cache, namespace, planName) : undefined;
      const sources = healthSources(cache, namespace, context.globalCatalogNamespace);
      const now = context.now();
      if (!ownPartDiffers(cached.status, ownStatus(cached, sources, plan, now), 'subscription')) return;
      try {
        await updateStatus<LiveSubscription>(
          client,
          { ...Kinds.subscription, namespace, name },
          (latest) => {
            // It references another plan than the one read: the cache's next event for it brings us back.
            if (latest.status?.installPlanRef?.name !== planName) return false;
            const desired = ownStatus(latest, sources, plan, now);
            if (!ownPartDiffers(latest.status, desired, 'subscription')) return false;
            latest.status = withOwnPart(latest.status, desired, 'subscription');
            return true;
          },
          { fieldManager: context.fieldManager },
        );
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
  };
}

/** The status with this reconciler's part brought up to date (the rest as given). */
function ownStatus(sub: LiveSubscription, sources: readonly CatalogSourceObject[], plan: InstallPlanObject | undefined, now: Date): SubscriptionStatus {
  let status: SubscriptionStatus = sub.status ?? {};
  if (status.installPlanRef) status = updateInstallPlanConditions(status, plan?.status, now).status;
  const view = { spec: { source: asString(sub.spec?.source), sourceNamespace: asString(sub.spec?.sourceNamespace) }, status };
  return updateCatalogHealth(view, catalogHealthOf(sources, now), now).status;
}

/** The catalogs whose health a Subscription reports: its namespace's and the global ones (as upstream, whatever the OperatorGroup excludes). */
function healthSources(cache: ObjectReader, namespace: string, global: string): CatalogSourceObject[] {
  const namespaces = namespace === global ? [namespace] : [namespace, global];
  return namespaces.flatMap((catalogNamespace) => cache.list(Kinds.catalogSource, { namespace: catalogNamespace }));
}

/** The referenced InstallPlan from the cache, or live when the cache has not seen it yet (a plan just created is not missing). */
async function referencedPlan(client: KubeClient, cache: ObjectReader, namespace: string, name: string): Promise<InstallPlanObject | undefined> {
  const cached = cache.get(Kinds.installPlan, name, namespace);
  if (cached) return cached;
  try {
    return await client.get<InstallPlanObject>({ ...Kinds.installPlan, namespace, name });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
