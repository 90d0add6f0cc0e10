import {
  InstallPlanConditionTypes,
  InstallPlanReasons,
  installIdentity,
  sameConditionState,
  serviceAccountUsername,
  withCondition,
  type InstallIdentity,
  type InstallPlanCondition,
  type InstallPlanStatus,
} from '@olm/api';
import type { CachedObject, KubeClient, ObjectReader } from '@olm/core';
import { isSemanticallyEqual } from '@olm/controller-runtime';
import { Kinds, type InstallPlanObject } from '../kinds.js';

/** Whose rights the InstallPlans of `namespace` install with, from its cached OperatorGroups. */
export function installPlanIdentity(cache: ObjectReader, namespace: string): InstallIdentity {
  return installIdentity(cache.list(Kinds.operatorGroup, { namespace }));
}

type IdentityStatus = Pick<InstallPlanStatus, 'conditions' | 'attenuatedServiceAccountRef'>;

/**
 * Upstream `syncInstallPlans` before the phase transition: an account the group names but that is not
 * usable yet sets `Installed` False / `InstallCheckFailed` with the querier's message (and the plan waits);
 * once usable, that condition is cleared to reason `Unknown` (upstream's reset), and the account is
 * recorded in `status.attenuatedServiceAccountRef`, which execution then acts as. Returns the status to
 * continue with and whether the plan may go on.
 */
export function withInstallIdentity<T extends IdentityStatus>(status: T, identity: InstallIdentity, time: string): { status: T; proceed: boolean } {
  const installed = status.conditions?.find((condition) => condition.type === InstallPlanConditionTypes.Installed);
  if (identity.kind === 'error') {
    const failed: InstallPlanCondition = {
      type: InstallPlanConditionTypes.Installed,
      status: 'False',
      reason: InstallPlanReasons.InstallCheckFailed,
      message: identity.message,
      lastUpdateTime: time,
      lastTransitionTime: time,
    };
    return { status: { ...status, conditions: replaceCondition(status.conditions, failed) }, proceed: false };
  }
  let next = status;
  if (installed?.reason === InstallPlanReasons.InstallCheckFailed) {
    const reset: InstallPlanCondition = { type: InstallPlanConditionTypes.Installed, status: 'False', reason: 'Unknown', lastUpdateTime: time, lastTransitionTime: time };
    next = { ...next, conditions: replaceCondition(next.conditions, reset) };
  }
  if (identity.kind === 'serviceAccount' && !isSemanticallyEqual(next.attenuatedServiceAccountRef, identity.reference)) {
    next = { ...next, attenuatedServiceAccountRef: identity.reference };
  }
  return { status: next, proceed: true };
}

/** Sets a condition; an unchanged one (status, reason, message) keeps its times, so a retry writes nothing. */
function replaceCondition(conditions: readonly InstallPlanCondition[] | undefined, condition: InstallPlanCondition): InstallPlanCondition[] {
  const previous = conditions?.find((existing) => existing.type === condition.type);
  return previous && sameConditionState(previous, condition) ? [...(conditions ?? [])] : withCondition(conditions, condition);
}

/**
 * The client a plan's objects are created with (upstream `ExecutePlan`'s attenuated clients): OLM's own,
 * or, when the plan records `status.attenuatedServiceAccountRef`, OLM's impersonating that account, so
 * the API server authorizes every step as the account. As upstream's token lookup, a deleted account
 * fails the execution (`serviceaccounts "x" not found`).
 */
export async function installerClient(client: KubeClient, plan: InstallPlanObject): Promise<KubeClient> {
  const reference = plan.status?.attenuatedServiceAccountRef;
  if (!reference?.name) return client;
  const namespace = reference.namespace || (plan.metadata?.namespace ?? '');
  await client.get({ ...Kinds.serviceAccount, namespace, name: reference.name });
  return client.impersonate({ username: serviceAccountUsername(namespace, reference.name) });
}
