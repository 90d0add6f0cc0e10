import { isCopied } from '@olm/api';
import type { CachedObject, ObjectReader, ReconcileResult, Reconciler } from '@olm/core';
import type { ResolutionDeps } from './resolution-deps.js';
import { writeInstallPlan } from '../install-plans/install-plan-write.js';
import { Kinds, nameOf } from '../kinds.js';
import { resolveNamespace } from './resolve-namespace.js';
import { collectInstallPlans, readNamespace } from './namespace-snapshot.js';
import { failResolution, failSubscriptions, reportUnpacking, reportVersionPins } from './resolution-outcomes.js';
import { resolveSteps, type StepResolution } from './step-resolution.js';
import { refreshSubscriptions } from '../subscriptions/subscription-refresh.js';

/**
 * Namespace resolution (upstream's `syncResolvingNamespace`), one namespace per request:
 * collect old InstallPlans, refresh each Subscription's InstallPlan/CSV/catalog state, resolve the
 * namespace, and when some Subscription's `currentCSV` changes write an InstallPlan with the steps
 * of every new or upgraded bundle.
 */
export function createNamespaceResolutionReconciler(context: ResolutionDeps): Reconciler {
  // Namespaces that hold Subscriptions, learnt from watch events: a global catalog's change resolves them all.
  const subscriptionNamespaces = new Set<string>();
  const toNamespace = (object: CachedObject) => (object.metadata?.namespace ? [{ name: object.metadata.namespace }] : []);
  // A global catalog serves every namespace with Subscriptions; another one its own namespace.
  const servedBy = (catalogNamespace: string) =>
    catalogNamespace === context.globalCatalogNamespace ? [...subscriptionNamespaces].map((name) => ({ name })) : [{ name: catalogNamespace }];
  return {
    name: 'namespace-resolution',
    for: Kinds.namespace,
    // Namespaces are independent (one key never runs twice at once); upstream runs two workers too.
    maxConcurrentReconciles: 2,
    watches: [
      {
        ...Kinds.subscription,
        map: (object) => {
          if (object.metadata?.namespace) subscriptionNamespaces.add(object.metadata.namespace);
          return toNamespace(object);
        },
      },
      { ...Kinds.catalogSource, map: (object) => (object.metadata?.namespace ? servedBy(object.metadata.namespace) : []) },
      { ...Kinds.operatorGroup, map: toNamespace },
      // A copied CSV (tens of thousands: one per namespace and AllNamespaces operator) is left out of resolution;
      // it matters to its namespace only as the CSV a Subscription there names (the Subscription's state).
      { ...Kinds.clusterServiceVersion, map: (csv, cache) => (isCopied(csv) && !namedBySubscription(cache, csv) ? [] : toNamespace(csv)) },
      { ...Kinds.installPlan, map: toNamespace },
      // resolutionFailureScope: every namespace resolves again under the new scope.
      { ...Kinds.olmConfig, map: () => [...subscriptionNamespaces].map((name) => ({ name })) },
    ],
    // A catalog whose registry may serve other content now (restarted, republished): resolve again, as upstream
    // requeues the namespaces subscribed to a catalog whose connection becomes READY.
    eventSources: [context.catalogEvents.contentChanged.eventSource((key) => servedBy(key.namespace))],
    async reconcile({ name: namespace }, { cache, signal }) {
      context.metrics?.subscriptionCount.set(cache.list(Kinds.subscription).length);
      context.metrics?.installPlanCount.set(cache.list(Kinds.installPlan).length);
      const present = cache.list(Kinds.subscription, { namespace });
      context.metrics?.subscriptionSyncs.forgetMissing(namespace, new Set(present.map(nameOf)));
      // Kept to the namespaces that hold Subscriptions now, so deleted namespaces do not pile up.
      if (present.length === 0) {
        subscriptionNamespaces.delete(namespace);
        return;
      }
      subscriptionNamespaces.add(namespace);
      return syncNamespace(context, cache, namespace, signal);
    },
  };
}

/** Whether a Subscription in the CSV's namespace names it as its current or installed CSV. */
function namedBySubscription(cache: ObjectReader, csv: CachedObject): boolean {
  const name = csv.metadata?.name;
  return (cache.list(Kinds.subscription, { namespace: csv.metadata?.namespace ?? '' })).some(
    (subscription) => subscription.status?.currentCSV === name || subscription.status?.installedCSV === name,
  );
}

/**
 * One namespace's pass, as named steps: collect old InstallPlans → read the namespace → refresh the
 * Subscriptions' status (stop when a state changed or every one waits on its plan) → resolve → steps of the
 * new bundles (image-only ones once unpacked) → write the InstallPlan and the Subscriptions.
 */
async function syncNamespace(context: ResolutionDeps, cache: ObjectReader, namespace: string, signal: AbortSignal): Promise<ReconcileResult | void> {
  const client = context.client();
  const now = context.now();
  const plans = await collectInstallPlans(client, namespace);
  const snapshot = await readNamespace(context, client, cache, namespace, plans);
  if (!snapshot) return;
  const refreshed = await refreshSubscriptions(context, snapshot, now);
  if (refreshed.waiting) return;
  let working = refreshed.working;
  const outcome = await resolveNamespace(context, snapshot, working, signal, now);
  if ('done' in outcome) return outcome.done;
  const { resolution, catalogs, unpack } = outcome.resolved;
  // failureScope 'subscription': the Subscriptions left out get ResolutionFailed; the others go on.
  const failed = await failSubscriptions(context, working, resolution.failedSubscriptions ?? [], now);
  working = working.filter((sub) => !failed.has(sub));
  reportVersionPins(working, resolution.withheldUpdates ?? [], now);
  let planned: StepResolution;
  try {
    planned = await resolveSteps(context, { namespace, resolution, catalogs, subscriptions: snapshot.subscriptions, csvs: snapshot.csvs, sources: snapshot.sources, plans: snapshot.plans, unpack });
  } catch (error) {
    return failResolution(context, working, error, now);
  }
  // No InstallPlan until every bundle of it is unpacked (as upstream since it unpacks during resolution);
  // the conditions say what is being waited on.
  if (planned.unpacking.length > 0) return reportUnpacking(context, working, planned.unpacking, now);
  return writeInstallPlan(context, snapshot, working, planned, now);
}
