import { ProjectAnnotations, ProjectSubscriptionConditionTypes, ProjectSubscriptionReasons, SubscriptionConditionTypes, SubscriptionReasons } from '@olm/api';
import { describeError, hasErrorCode, type FailedSubscription, type WithheldUpdate } from '@olm/core';
import { isSemanticallyEqual } from '@olm/controller-runtime';
import type { ResolutionDeps } from './resolution-deps.js';
import { nameOf } from '../kinds.js';
import type { Unfinished } from './step-resolution.js';
import { removeConditions, setCondition } from '../subscriptions/subscription-status.js';
import { writeSubscriptions, type Working } from '../subscriptions/subscription-writes.js';

type OutcomeContext = Pick<ResolutionDeps, 'client' | 'fieldManager' | 'events' | 'bundleUnpackPollMs'>;

/**
 * Upstream's conditions while bundles are unpacked: `BundleUnpacking` (`UnpackingInProgress`) while
 * a pull runs, `BundleUnpackFailed` when one failed (kept while it is retried, so the reason stays
 * visible). Resolution itself succeeded, so `ResolutionFailed` goes.
 */
export async function reportUnpacking(context: OutcomeContext, working: Working[], unpacking: readonly Unfinished[], now: Date) {
  const pending = unpacking.filter((entry) => entry.state === 'pending');
  const failed = unpacking.filter((entry) => entry.state === 'failed');
  for (const sub of working) {
    sub.status = removeConditions(sub.status, [SubscriptionConditionTypes.ResolutionFailed], now).status;
    if (pending.length > 0) {
      sub.status = setCondition(sub.status, { type: SubscriptionConditionTypes.BundleUnpacking, status: 'True', reason: SubscriptionReasons.UnpackingInProgress, message: pending.map((entry) => entry.message).join('; ') }, now).status;
    } else {
      sub.status = removeConditions(sub.status, [SubscriptionConditionTypes.BundleUnpacking], now).status;
    }
    if (failed.length > 0) {
      const reason = failed.some((entry) => entry.reason === 'BundleUnpackFailed') ? SubscriptionReasons.BundleUnpackFailed : SubscriptionReasons.ErrorPreventedUnpacking;
      sub.status = setCondition(sub.status, { type: SubscriptionConditionTypes.BundleUnpackFailed, status: 'True', reason, message: failed.map((entry) => entry.message).join('; ') }, now).status;
    }
  }
  const before = working.map((sub) => sub.object.status?.conditions);
  await writeSubscriptions(context, working);
  if (failed.length > 0) {
    working.forEach((sub, index) => {
      // one event per new failure, not one per retry pass
      if (!isSemanticallyEqual(before[index], sub.status.conditions)) void context.events().warning(sub.object, SubscriptionConditionTypes.BundleUnpackFailed, failed.map((entry) => entry.message).join('; '));
    });
  }
  const retryInMs = failed.map((entry) => entry.retryInMs);
  return { requeueAfter: pending.length > 0 ? context.bundleUnpackPollMs : Math.max(100, Math.min(...retryInMs)) };
}

/**
 * `ResolutionFailed` on every Subscription, with a Warning event: `ConstraintsNotSatisfiable` (tried again
 * when an input changes), else `ErrorPreventedResolution` (rethrown, so retried on a backoff, unless the
 * resolution used up its budget: the same input would cost as much again).
 */
export async function failResolution(context: OutcomeContext, working: Working[], error: unknown, now: Date) {
  const unsatisfiable = hasErrorCode(error, 'OLM_RESOLVER_UNSATISFIABLE');
  // A resolution over its budget costs as much again on the same input: like unsatisfiable constraints,
  // it is tried again when the inputs change, not on a backoff (upstream has no budget).
  const overBudget = hasErrorCode(error, 'OLM_RESOLVER_BUDGET_EXHAUSTED');
  // The resolver may word the failure for each Subscription (what it asked for, the catalogs searched, a fix).
  const perSubscription = (hasErrorCode(error) ? (error.details['subscriptionMessages'] as Record<string, string> | undefined) : undefined) ?? {};
  const messageFor = (sub: Working) => perSubscription[nameOf(sub.object)] ?? describeError(error);
  for (const sub of working) {
    sub.status = setCondition(
      sub.status,
      {
        type: SubscriptionConditionTypes.ResolutionFailed,
        status: 'True',
        reason: unsatisfiable ? SubscriptionReasons.ConstraintsNotSatisfiable : SubscriptionReasons.ErrorPreventedResolution,
        message: messageFor(sub) },
      now,
    ).status;
  }
  await writeSubscriptions(context, working);
  for (const sub of working) {
    void context.events().warning(sub.object, SubscriptionConditionTypes.ResolutionFailed, messageFor(sub));
  }
  // Unsatisfiable constraints change only when the inputs do (and then a watch event brings us back).
  if (!unsatisfiable && !overBudget) throw error;
}

/**
 * `ResolutionFailed` (`ConstraintsNotSatisfiable`) on the Subscriptions a `failureScope: 'subscription'`
 * resolution left out, each with its own explanation; a Warning event when that explanation is new (the
 * namespace is resolved again on every change in it, and the failure would otherwise be repeated).
 * Returns the failed ones, which the rest of the pass leaves alone.
 */
export async function failSubscriptions(context: OutcomeContext, working: Working[], failures: readonly FailedSubscription[], now: Date): Promise<Set<Working>> {
  const failed = new Set<Working>();
  if (failures.length === 0) return failed;
  const messages = new Map(failures.map((failure) => [failure.name, failure.message]));
  const changed: Working[] = [];
  for (const sub of working) {
    const message = messages.get(nameOf(sub.object));
    if (message === undefined) continue;
    failed.add(sub);
    const before = sub.status.conditions;
    sub.status = setCondition(sub.status, { type: SubscriptionConditionTypes.ResolutionFailed, status: 'True', reason: SubscriptionReasons.ConstraintsNotSatisfiable, message }, now).status;
    if (!isSemanticallyEqual(before, sub.status.conditions)) changed.push(sub);
  }
  await writeSubscriptions(context, [...failed]);
  for (const sub of changed) void context.events().warning(sub.object, SubscriptionConditionTypes.ResolutionFailed, messages.get(nameOf(sub.object))!);
  return failed;
}

/**
 * `VersionPinned` on each Subscription whose `olm-ts.io/version-pin` keeps a newer version out (what it is,
 * and how to let it in); gone when nothing waits. Written with the rest of the pass's status.
 */
export function reportVersionPins(working: Working[], withheld: readonly WithheldUpdate[], now: Date): void {
  const byName = new Map(withheld.map((update) => [update.subscription, update]));
  for (const sub of working) {
    const update = byName.get(nameOf(sub.object));
    if (!update) {
      sub.status = removeConditions(sub.status, [ProjectSubscriptionConditionTypes.VersionPinned], now).status;
      continue;
    }
    const message =
      `${update.bundle.name} (version ${update.bundle.version}) is available but outside the version pin ${JSON.stringify(update.versionRange)} ` +
      `(annotation ${ProjectAnnotations.versionPin}); widen or remove the annotation to upgrade`;
    sub.status = setCondition(sub.status, { type: ProjectSubscriptionConditionTypes.VersionPinned, status: 'True', reason: ProjectSubscriptionReasons.NewerVersionOutsidePin, message }, now).status;
  }
}
