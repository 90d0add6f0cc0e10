import { SubscriptionConditionTypes, SubscriptionReasons, SubscriptionStates } from '@olm/api';
import { describeError } from '@olm/core';
import { formatTime } from '@olm/go-format';
import type { InstallPlanDeps } from './install-plan-deps.js';
import { ensureInstallPlan } from './install-plan-creation.js';
import { orderSteps } from './install-plan-rules.js';
import { nameOf } from '../kinds.js';
import type { NamespaceSnapshot } from '../resolution/namespace-snapshot.js';
import type { StepResolution } from '../resolution/step-resolution.js';
import { removeConditions, setCondition } from '../subscriptions/subscription-status.js';
import { writeSubscriptions, type Working } from '../subscriptions/subscription-writes.js';

/**
 * When some Subscription's `currentCSV` changes, an InstallPlan with the steps (reused when a half-made one
 * exists), referenced from the Subscriptions it updates (`UpgradePending`); then the resolution and unpack
 * conditions go from every Subscription.
 */
export async function writeInstallPlan(context: InstallPlanDeps, snapshot: NamespaceSnapshot, working: Working[], planned: StepResolution, now: Date): Promise<void> {
  const { steps, updated, bundleLookups } = planned;
  if (updated.size > 0 && steps.length > 0) {
    let created: Awaited<ReturnType<typeof ensureInstallPlan>>;
    try {
      created = await ensureInstallPlan(context, snapshot.namespace, snapshot.subscriptions, snapshot.plans, orderSteps(steps), planned.approval, bundleLookups);
    } catch (error) {
      // upstream reports this under BundleUnpackFailed, with its own reason, and retries
      const message = `error ensuring InstallPlan: ${describeError(error)}`;
      for (const sub of working) {
        sub.status = setCondition(sub.status, { type: SubscriptionConditionTypes.BundleUnpackFailed, status: 'True', reason: SubscriptionReasons.EnsureInstallPlanFailed, message }, now).status;
      }
      await writeSubscriptions(context, working);
      throw error;
    }
    const { reference, generation } = created;
    for (const sub of working) {
      const currentCSV = updated.get(nameOf(sub.object));
      if (currentCSV === undefined) continue;
      sub.status = {
        ...sub.status,
        currentCSV,
        installPlanRef: reference,
        installplan: { apiVersion: reference.apiVersion, kind: reference.kind, name: reference.name, uuid: reference.uid },
        installPlanGeneration: generation,
        state: SubscriptionStates.UpgradePending,
        lastUpdated: formatTime(now),
      };
    }
  }
  for (const sub of working) {
    sub.status = removeConditions(sub.status, [SubscriptionConditionTypes.ResolutionFailed, SubscriptionConditionTypes.BundleUnpacking, SubscriptionConditionTypes.BundleUnpackFailed], now).status;
  }
  await writeSubscriptions(context, working);
}
