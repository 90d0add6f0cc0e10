import { hasErrorCode, OlmError, type FailedSubscription, type NamespaceResolution, type ResolveInput, type ResolverSubscription } from '@olm/core';
import { ResolverErrorCodes } from './errors.js';
import { readableFailure } from './failure-explanation.js';
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
  if (input.failureScope !== 'subscription') {
    try {
      return yield* runOnce(input);
    } catch (error) {
      throw withSubscriptionMessages(error, input);
    }
  }
  const failed: FailedSubscription[] = [];
  let subscriptions: readonly ResolverSubscription[] = input.subscriptions ?? [];
  for (;;) {
    try {
      const resolution = yield* runOnce({ ...input, subscriptions });
      return failed.length > 0 ? { ...resolution, failedSubscriptions: failed } : resolution;
    } catch (error) {
      const guilty = subscriptionsInConflict(error, subscriptions);
      if (guilty.length === 0) throw error;
      const explanation = (error as Error).message;
      for (const subscription of guilty) failed.push({ name: subscription.name, code: ResolverErrorCodes.unsatisfiable, message: readableFailure(input, subscription, explanation) });
      subscriptions = subscriptions.filter((subscription) => !guilty.includes(subscription));
    }
  }
}

function subscriptionsInConflict(error: unknown, subscriptions: readonly ResolverSubscription[]): ResolverSubscription[] {
  if (!hasErrorCode(error, ResolverErrorCodes.unsatisfiable)) return [];
  const core = ((error as { details?: { constraints?: readonly { variable: string }[] } }).details?.constraints ?? []).map((constraint) => constraint.variable);
  return subscriptions.filter((subscription) => core.includes(subscriptionVariableId(subscription.name)));
}

/**
 * Upstream's all-or-nothing failure, with `details.subscriptionMessages`: for each Subscription the message
 * its ResolutionFailed condition should carry (what it asked for, the catalogs searched, a fix; those outside
 * the conflict are told they wait for it).
 */
function withSubscriptionMessages(error: unknown, input: ResolveInput): unknown {
  if (!hasErrorCode(error, ResolverErrorCodes.unsatisfiable)) return error;
  const subscriptions = input.subscriptions ?? [];
  const guilty = new Set(subscriptionsInConflict(error, subscriptions));
  const subscriptionMessages = Object.fromEntries(
    subscriptions.map((subscription) => [
      subscription.name,
      guilty.has(subscription)
        ? readableFailure(input, subscription, error.message)
        : `${error.message.replace(/\.$/, '')}. Subscription ${subscription.name} is not part of this conflict; it waits because the namespace is resolved as a whole (failure scope Namespace)`,
    ]),
  );
  return new OlmError(error.code, error.message, { details: { ...error.details, subscriptionMessages }, cause: error });
}
