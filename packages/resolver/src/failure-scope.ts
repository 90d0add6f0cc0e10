import { hasErrorCode, type FailedSubscription, type NamespaceResolution, type ResolveInput, type ResolverSubscription } from '@olm/core';
import { ResolverErrorCodes } from './errors.js';
import type { Steps } from './work-slices.js';

/** The variable id the resolver gives a Subscription (`subscription:<name>`). */
export const subscriptionVariableId = (name: string): string => `subscription:${name}`;

/**
 * Resolves with the input's `failureScope`. `namespace` (upstream): one run, its failure is the
 * namespace's. `subscription`: when a run is unsatisfiable, the Subscriptions in its minimal conflict
 * are set aside with that explanation and the rest resolved again, until a run succeeds. At most one
 * run per Subscription, and every run spends from the same budget, so the bound holds in aggregate.
 * A conflict among installed operators alone (no Subscription in it) still fails the namespace.
 */
export function* resolveWithFailureScope<Stats>(input: ResolveInput, runOnce: (input: ResolveInput) => Steps<NamespaceResolution<Stats>>): Steps<NamespaceResolution<Stats>> {
  if (input.failureScope !== 'subscription') return yield* runOnce(input);
  const failed: FailedSubscription[] = [];
  let subscriptions: readonly ResolverSubscription[] = input.subscriptions ?? [];
  for (;;) {
    try {
      const resolution = yield* runOnce({ ...input, subscriptions });
      return failed.length > 0 ? { ...resolution, failedSubscriptions: failed } : resolution;
    } catch (error) {
      const guilty = subscriptionsInConflict(error, subscriptions);
      if (guilty.length === 0) throw error;
      const message = (error as Error).message;
      for (const subscription of guilty) failed.push({ name: subscription.name, code: ResolverErrorCodes.unsatisfiable, message });
      subscriptions = subscriptions.filter((subscription) => !guilty.includes(subscription));
    }
  }
}

function subscriptionsInConflict(error: unknown, subscriptions: readonly ResolverSubscription[]): ResolverSubscription[] {
  if (!hasErrorCode(error, ResolverErrorCodes.unsatisfiable)) return [];
  const core = ((error as { details?: { constraints?: readonly { variable: string }[] } }).details?.constraints ?? []).map((constraint) => constraint.variable);
  return subscriptions.filter((subscription) => core.includes(subscriptionVariableId(subscription.name)));
}
