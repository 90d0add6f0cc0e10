import { InstallPlanPhases, SubscriptionStates } from '@olm/api';
import { formatTime } from '@olm/go-format';
import { catalogSourceRevision } from '../catalog-sources/catalog-source-connections.js';
import type { SubscriptionDeps } from './subscription-deps.js';
import { deprecationConditions } from './deprecation-conditions.js';
import { referenceOf } from '../install-plans/install-plan-creation.js';
import { asString, nameOf, type CatalogSourceObject, type InstallPlanObject } from '../kinds.js';
import type { NamespaceSnapshot, LiveSubscription } from '../resolution/namespace-snapshot.js';
import {
  catalogHealthOf,
  updateCatalogHealth,
  updateCsvState,
  updateInstallPlanConditions,
  type CatalogHealth,
  type SubscriptionStatus,
} from './subscription-status.js';
import { writeSubscriptions, type Working } from './subscription-writes.js';

const generatedByAnnotation = 'olm.generated-by';

type RefreshContext = Pick<SubscriptionDeps, 'client' | 'fieldManager' | 'connections' | 'metrics'>;

export interface RefreshedSubscriptions {
  readonly working: Working[];
  /** Resolution waits: a state changed (the status write brings the next pass) or every Subscription waits on its plan. */
  readonly waiting: boolean;
}

/**
 * Refreshes every Subscription's status from its InstallPlan, its CSV and the catalogs' health (with the
 * deprecation conditions of the installed entry), counts its sync, and writes what changed of the pass's part
 * (catalog health and the InstallPlan conditions are computed alike, to decide, but the `subscription`
 * reconciler writes them).
 */
export async function refreshSubscriptions(context: RefreshContext, snapshot: NamespaceSnapshot, now: Date): Promise<RefreshedSubscriptions> {
  const { namespace, subscriptions, healthSources } = snapshot;
  const health = catalogHealthOf(healthSources, now);
  await refreshTargetedContent(context, healthSources, subscriptions);
  const working: Working[] = subscriptions.map((object) => ({ object, status: object.status ?? {} }));
  let stateChanged = false;
  for (const sub of working) {
    const before = sub.status;
    sub.status = refreshedStatus(context, snapshot, sub.object, sub.status, health, now);
    if (before.state !== sub.status.state || before.installPlanRef?.name !== sub.status.installPlanRef?.name || before.currentCSV !== sub.status.currentCSV) {
      stateChanged = true;
    }
    context.metrics?.subscriptionSyncs.record(namespace, {
      name: nameOf(sub.object),
      installed: asString(sub.status.installedCSV),
      channel: asString(sub.object.spec?.channel),
      package: asString(sub.object.spec?.name),
      approval: asString(sub.object.spec?.installPlanApproval),
    });
  }
  await writeSubscriptions(context, working);
  const waiting = stateChanged || working.every((sub) => sub.status.installPlanRef && sub.status.state === SubscriptionStates.UpgradePending);
  return { working, waiting };
}

function refreshedStatus(
  context: RefreshContext,
  { plans, csvs, failForward, healthSources }: NamespaceSnapshot,
  object: LiveSubscription,
  current: SubscriptionStatus,
  health: readonly CatalogHealth[],
  now: Date,
): SubscriptionStatus {
  let status = adoptGeneratingInstallPlan(object, current, plans, now);
  const ref = status.installPlanRef;
  let plan: InstallPlanObject | undefined;
  if (ref) {
    plan = plans.find((candidate) => nameOf(candidate) === ref.name);
    status = updateInstallPlanConditions(status, plan?.status, now).status;
  }
  const currentCsvExists = csvs.some((csv) => nameOf(csv) === status.currentCSV);
  status = updateCsvState(status, currentCsvExists, now, {
    failForward,
    installPlanFailed: plan?.status?.phase === InstallPlanPhases.Failed,
  }).status;
  status = updateCatalogHealth({ spec: { source: asString(object.spec?.source), sourceNamespace: asString(object.spec?.sourceNamespace) }, status }, health, now).status;
  return deprecationConditions(object, status, healthSources, context, now);
}

/**
 * Brings the content of the catalogs the Subscriptions target up to date (within the TTL, or after
 * the CatalogSource changed), so deprecation conditions read what resolution will. A catalog that
 * cannot be read now is left as it is: its health and resolution say so.
 */
async function refreshTargetedContent(context: Pick<SubscriptionDeps, 'connections'>, sources: readonly CatalogSourceObject[], subscriptions: readonly LiveSubscription[]): Promise<void> {
  for (const source of sources) {
    const key = { namespace: source.metadata?.namespace ?? '', name: nameOf(source) };
    if (!subscriptions.some((sub) => sub.spec?.source === key.name && sub.spec?.sourceNamespace === key.namespace)) continue;
    if (!context.connections.isConnected(key)) continue;
    await context.connections.content(key, catalogSourceRevision(source)).catch(() => undefined);
  }
}

/** A Subscription an InstallPlan created (annotation `olm.generated-by`) takes that plan as its own. */
function adoptGeneratingInstallPlan(sub: LiveSubscription, status: SubscriptionStatus, plans: readonly InstallPlanObject[], now: Date): SubscriptionStatus {
  if (status.installPlanRef || status.installplan) return status;
  const planName = sub.metadata?.annotations?.[generatedByAnnotation];
  const plan = planName ? plans.find((candidate) => nameOf(candidate) === planName) : undefined;
  if (!plan) return status;
  const reference = referenceOf(plan);
  return {
    ...status,
    installPlanRef: reference,
    installplan: { apiVersion: reference.apiVersion, kind: reference.kind, name: reference.name, uuid: reference.uid },
    installPlanGeneration: plan.spec?.generation ?? 0,
    state: SubscriptionStates.UpgradePending,
    currentCSV: asString(sub.spec?.startingCSV),
    lastUpdated: formatTime(now),
  };
}
