import { SubscriptionConditionTypes } from '@olm/api';
import { isSemanticallyEqual } from '@olm/controller-runtime';
import type { SubscriptionCondition, SubscriptionStatus } from './subscription-status.js';

/**
 * Who writes which part of a Subscription's status. Two reconcilers write it, each only its own part, on the
 * latest object, so neither loses what the other wrote (upstream's Subscription syncer and its namespace sync):
 * - `subscription`: catalog health (`CatalogSourcesUnhealthy`, `catalogHealth`) and the state of the referenced
 *   InstallPlan (`InstallPlanPending`, `InstallPlanFailed`, `InstallPlanMissing`);
 * - `namespace`: everything else (what resolution decides: `state`, `currentCSV`, `installedCSV`, the plan
 *   reference, `ResolutionFailed`, the unpack and deprecation conditions).
 * `lastUpdated` follows the writer whose part changed.
 */
export type StatusOwner = 'subscription' | 'namespace';

const subscriptionConditionTypes: ReadonlySet<string> = new Set([
  SubscriptionConditionTypes.CatalogSourcesUnhealthy,
  SubscriptionConditionTypes.InstallPlanPending,
  SubscriptionConditionTypes.InstallPlanFailed,
  SubscriptionConditionTypes.InstallPlanMissing,
]);
const subscriptionFields: ReadonlySet<string> = new Set(['catalogHealth']);
const sharedFields: ReadonlySet<string> = new Set(['conditions', 'lastUpdated']);

const ownerOfCondition = (type: string): StatusOwner => (subscriptionConditionTypes.has(type) ? 'subscription' : 'namespace');
const ownerOfField = (field: string): StatusOwner => (subscriptionFields.has(field) ? 'subscription' : 'namespace');

/** The owner's part of a status: its fields and its conditions (by type, so their order does not matter). */
function partOf(status: SubscriptionStatus | undefined, owner: StatusOwner): { fields: Record<string, unknown>; conditions: Record<string, SubscriptionCondition> } {
  const fields: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(status ?? {})) {
    if (!sharedFields.has(field) && ownerOfField(field) === owner) fields[field] = value;
  }
  const conditions: Record<string, SubscriptionCondition> = {};
  for (const condition of status?.conditions ?? []) {
    if (ownerOfCondition(condition.type) === owner) conditions[condition.type] = condition;
  }
  return { fields, conditions };
}

/** Whether two statuses differ in the owner's part (semantically). */
export function ownPartDiffers(a: SubscriptionStatus | undefined, b: SubscriptionStatus | undefined, owner: StatusOwner): boolean {
  return !isSemanticallyEqual(partOf(a, owner), partOf(b, owner));
}

/**
 * `latest` with the owner's part taken from `desired` (the other writer's part stays as stored). Conditions keep
 * their stored order; new ones of the owner come last. `lastUpdated` is the desired one only when the part changed.
 */
export function withOwnPart(latest: SubscriptionStatus | undefined, desired: SubscriptionStatus, owner: StatusOwner): SubscriptionStatus {
  const stored = latest ?? {};
  if (!ownPartDiffers(stored, desired, owner)) return stored;
  const result: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(stored)) {
    if (sharedFields.has(field) || ownerOfField(field) !== owner) result[field] = value;
  }
  for (const [field, value] of Object.entries(desired)) {
    if (!sharedFields.has(field) && ownerOfField(field) === owner) result[field] = value;
  }
  const wanted = partOf(desired, owner).conditions;
  const conditions = (stored.conditions ?? []).flatMap((condition) => (ownerOfCondition(condition.type) !== owner ? [condition] : wanted[condition.type] ? [wanted[condition.type]!] : []));
  for (const condition of Object.values(wanted)) {
    if (!conditions.some((existing) => existing.type === condition.type)) conditions.push(condition);
  }
  if (conditions.length > 0 || stored.conditions !== undefined) result.conditions = conditions;
  if (desired.lastUpdated !== undefined) result.lastUpdated = desired.lastUpdated;
  return result as SubscriptionStatus;
}
