import type { InstallPlanStatus, ObjectReference, SubscriptionCatalogHealth as CatalogHealth, SubscriptionCondition, SubscriptionStatus as ApiSubscriptionStatus } from '@olm/api';
import { sameConditionState, withCondition as withListCondition } from '@olm/api';
import { CatalogSourceReasons, GrpcConnectionStates, BundleLookupConditionTypes, InstallPlanConditionTypes, InstallPlanPhases, SubscriptionConditionTypes, SubscriptionReasons, SubscriptionStates } from '@olm/api';
import { formatTime } from '@olm/go-format';
import { Kinds, nameOf, type CatalogSourceObject } from '../kinds.js';

/** A Subscription's status as the controllers compute it: @olm/api's, `lastUpdated` set once something is written. */
export type SubscriptionStatus = Omit<ApiSubscriptionStatus, 'lastUpdated'> & { lastUpdated?: string };
export type { CatalogHealth, ObjectReference, SubscriptionCondition };

export interface SubscriptionView {
  readonly spec: { readonly source: string; readonly sourceNamespace: string };
  readonly status?: SubscriptionStatus;
}

/** The result of a status step: the new status and whether it differs from the old one. */
export interface StatusChange {
  readonly status: SubscriptionStatus;
  readonly changed: boolean;
}

export function getCondition(status: SubscriptionStatus | undefined, type: string): SubscriptionCondition | undefined {
  return status?.conditions?.find((condition) => condition.type === type);
}

/** Conditions are compared as upstream does: by type, status, reason and message, never by time. */
export const sameCondition = sameConditionState;

/** Upstream's `SubscriptionStatus.SetCondition`: the condition replaced whole, in place. */
function withCondition(status: SubscriptionStatus, condition: SubscriptionCondition): SubscriptionStatus {
  return { ...status, conditions: withListCondition(status.conditions, condition, { keepTransitionTime: false }) };
}

function withoutConditions(status: SubscriptionStatus, ...types: string[]): SubscriptionStatus {
  return { ...status, conditions: (status.conditions ?? []).filter((condition) => !types.includes(condition.type)) };
}

/** Sets a condition unless an equal one is present; the transition time moves only with the status. */
export function setCondition(status: SubscriptionStatus, condition: Omit<SubscriptionCondition, 'lastTransitionTime'>, now: Date): StatusChange {
  const previous = getCondition(status, condition.type);
  if (sameCondition(previous, condition)) return { status, changed: false };
  const lastTransitionTime = previous && previous.status === condition.status ? previous.lastTransitionTime : formatTime(now);
  return { status: { ...withCondition(status, { ...condition, lastTransitionTime }), lastUpdated: formatTime(now) }, changed: true };
}

export function removeConditions(status: SubscriptionStatus, types: readonly string[], now: Date): StatusChange {
  if (!(status.conditions ?? []).some((condition) => types.includes(condition.type))) return { status, changed: false };
  return { status: { ...withoutConditions(status, ...types), lastUpdated: formatTime(now) }, changed: true };
}

const sameRef = (a: ObjectReference, b: ObjectReference) =>
  (a.uid && b.uid ? a.uid === b.uid : a.namespace === b.namespace && a.name === b.name);

/**
 * The `CatalogSourcesUnhealthy` condition and `catalogHealth` list, from the health of every catalog
 * the Subscription can see (its namespace and the global one): unhealthy when the targeted catalog is
 * missing or any catalog is unhealthy; the reason says what changed when the set of catalogs changed.
 */
export function updateCatalogHealth(subscription: SubscriptionView, health: readonly CatalogHealth[], now: Date): StatusChange {
  const status = subscription.status ?? {};
  const { source, sourceNamespace } = subscription.spec;
  const target = health.find((entry) => entry.catalogSourceRef.namespace === sourceNamespace && entry.catalogSourceRef.name === source);
  let condition: { status: 'True' | 'False'; reason: string; message: string };
  if (!target) {
    condition = { status: 'True', reason: SubscriptionReasons.UnhealthyCatalogSourceFound, message: `targeted catalogsource ${sourceNamespace}/${source} missing` };
  } else if (!health.every((entry) => entry.healthy)) {
    condition = {
      status: 'True',
      reason: SubscriptionReasons.UnhealthyCatalogSourceFound,
      message: target.healthy
        ? (getCondition(status, SubscriptionConditionTypes.CatalogSourcesUnhealthy)?.message ?? '')
        : `targeted catalogsource ${sourceNamespace}/${source} unhealthy`,
    };
  } else {
    condition = { status: 'False', reason: SubscriptionReasons.AllCatalogSourcesHealthy, message: 'all available catalogsources are healthy' };
  }

  const previousHealth = status.catalogHealth ?? [];
  let listChanged = true;
  if (health.length > previousHealth.length) condition.reason = SubscriptionReasons.CatalogSourcesAdded;
  else if (health.length < previousHealth.length) condition.reason = SubscriptionReasons.CatalogSourcesDeleted;
  else if (health.length === 0) {
    condition = { status: 'True', reason: SubscriptionReasons.NoCatalogSourcesFound, message: 'dependency resolution requires at least one catalogsource' };
    listChanged = false;
  } else {
    const updated = previousHealth.some((old) => {
      const current = health.find((entry) => sameRef(entry.catalogSourceRef, old.catalogSourceRef));
      return !current || current.healthy !== old.healthy;
    });
    if (updated) condition.reason = SubscriptionReasons.CatalogSourcesUpdated;
    listChanged = false;
  }

  const next = { type: SubscriptionConditionTypes.CatalogSourcesUnhealthy, ...condition };
  if (!listChanged && sameCondition(getCondition(status, SubscriptionConditionTypes.CatalogSourcesUnhealthy), next)) return { status, changed: false };
  return {
    status: { ...withCondition(status, { ...next, lastTransitionTime: formatTime(now) }), catalogHealth: [...health], lastUpdated: formatTime(now) },
    changed: true,
  };
}

/** The phases of a plan that has not finished (`InstallPlanPending`). */
const pendingPhases: ReadonlySet<string> = new Set([InstallPlanPhases.None, InstallPlanPhases.Planning, InstallPlanPhases.Installing, InstallPlanPhases.RequiresApproval]);

/** The InstallPlan fields the Subscription projects into its conditions. */
export type InstallPlanStatusView = Partial<Pick<InstallPlanStatus, 'phase' | 'conditions' | 'bundleLookups'>>;

function installPlanMessage(plan: InstallPlanStatusView): string {
  const installed = plan.conditions?.find((condition) => condition.type === InstallPlanConditionTypes.Installed);
  if (installed && installed.status !== 'Unknown' && installed.message) return installed.message;
  return (plan.bundleLookups ?? [])
    .map((lookup) => lookup.conditions?.find((condition) => condition.type === BundleLookupConditionTypes.BundleLookupPending && condition.status !== 'Unknown'))
    .filter((condition) => condition?.message)
    .map((condition) => `${condition!.message}.`)
    .join(' ');
}

/**
 * The InstallPlan conditions of a Subscription that references one: `InstallPlanPending` while the
 * plan waits or installs, `InstallPlanFailed` when it failed, nothing once it is complete, and
 * `InstallPlanMissing` (or a reset, for a pending upgrade) when the plan is gone.
 */
export function updateInstallPlanConditions(status: SubscriptionStatus, plan: InstallPlanStatusView | undefined, now: Date): StatusChange {
  const time = formatTime(now);
  let next: SubscriptionStatus;
  if (!plan) {
    next = withoutConditions(status, SubscriptionConditionTypes.InstallPlanPending, SubscriptionConditionTypes.InstallPlanFailed);
    if (status.state === SubscriptionStates.UpgradePending) {
      const { installPlanRef: _ref, installplan: _legacy, ...rest } = next;
      next = { ...rest, currentCSV: '', state: '', lastUpdated: time };
    } else {
      next = withCondition(next, {
        type: SubscriptionConditionTypes.InstallPlanMissing,
        status: 'True',
        reason: SubscriptionReasons.ReferencedInstallPlanNotFound,
        lastTransitionTime: time,
      });
    }
  } else {
    next = withoutConditions(status, SubscriptionConditionTypes.InstallPlanMissing, SubscriptionConditionTypes.InstallPlanPending, SubscriptionConditionTypes.InstallPlanFailed);
    const phase = plan.phase ?? '';
    if (pendingPhases.has(phase)) {
      next = withCondition(next, {
        type: SubscriptionConditionTypes.InstallPlanPending,
        status: 'True',
        reason: phase === '' ? SubscriptionReasons.InstallPlanNotYetReconciled : phase,
        message: installPlanMessage(plan),
        lastTransitionTime: time,
      });
    } else if (phase === InstallPlanPhases.Failed) {
      const installed = plan.conditions?.find((condition) => condition.type === InstallPlanConditionTypes.Installed);
      next = withCondition(next, {
        type: SubscriptionConditionTypes.InstallPlanFailed,
        status: 'True',
        reason: installed?.status === 'False' && installed.reason ? installed.reason : SubscriptionReasons.InstallPlanFailed,
        message: installPlanMessage(plan),
        lastTransitionTime: time,
      });
    }
  }
  const before = status.conditions ?? [];
  const after = next.conditions ?? [];
  const conditionsSame = before.length === after.length && before.every((condition) => sameCondition(condition, getCondition(next, condition.type)));
  if (conditionsSame && next.state === status.state && next.installPlanRef === status.installPlanRef) return { status, changed: false };
  return { status: { ...next, lastUpdated: time }, changed: true };
}

/**
 * `state` from whether the CSV named `currentCSV` exists: `AtLatestKnown` (and `installedCSV`) when it
 * does, `UpgradePending` while it does not (`UpgradeFailed` instead when fail-forward is on and the
 * referenced InstallPlan failed).
 */
export function updateCsvState(
  status: SubscriptionStatus,
  currentCsvExists: boolean,
  now: Date,
  options: { readonly failForward?: boolean; readonly installPlanFailed?: boolean } = {},
): StatusChange {
  if (!status.currentCSV) return { status, changed: false };
  const next: SubscriptionStatus = currentCsvExists
    ? { ...status, state: SubscriptionStates.AtLatest, installedCSV: status.currentCSV }
    : { ...status, state: options.failForward && options.installPlanFailed ? SubscriptionStates.Failed : SubscriptionStates.UpgradePending };
  if (next.state === status.state) return { status, changed: false };
  return { status: { ...next, lastUpdated: formatTime(now) }, changed: true };
}

/** Health of every catalog a Subscription sees, sorted by namespace and name (as upstream lists them). */
export function catalogHealthOf(sources: readonly CatalogSourceObject[], now: Date): CatalogHealth[] {
  return [...sources]
    .sort((a, b) => `${a.metadata?.namespace}/${nameOf(a)}`.localeCompare(`${b.metadata?.namespace}/${nameOf(b)}`))
    .map((source) => {
      const status = source.status;
      return {
        catalogSourceRef: {
          apiVersion: Kinds.catalogSource.apiVersion,
          kind: Kinds.catalogSource.kind,
          name: nameOf(source),
          namespace: source.metadata?.namespace ?? '',
          uid: source.metadata?.uid,
        },
        lastUpdated: formatTime(now),
        healthy: status?.reason !== CatalogSourceReasons.SpecInvalidError && status?.connectionState?.lastObservedState === GrpcConnectionStates.Ready,
      };
    });
}
