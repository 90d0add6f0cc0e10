import { installIdentity, type InstallIdentity, type OperatorGroup, type ServiceAccountReference, serviceAccountUsername } from '@olm/api';
import type { ObjectReader } from '@olm/core';
import { isSemanticallyEqual, type KubeClient } from '@olm/controller-runtime';
import type { InstallPlanCondition } from './install-plan-rules.js';
import { Kinds, type AnyObject } from './kinds.js';

/** Whose rights the InstallPlans of `namespace` install with, from its cached OperatorGroups. */
export function installPlanIdentity(cache: ObjectReader, namespace: string): InstallIdentity {
  return installIdentity(cache.list(Kinds.operatorGroup, { namespace }) as readonly OperatorGroup[]);
}

interface IdentityStatus {
  conditions?: InstallPlanCondition[];
  attenuatedServiceAccountRef?: ServiceAccountReference;
  [field: string]: unknown;
}

/**
 * Upstream `syncInstallPlans` before the phase transition: an account the group names but that is not
 * usable yet sets `Installed` False / `InstallCheckFailed` with the querier's message (and the plan waits);
 * once usable, that condition is cleared to reason `Unknown` (upstream's reset), and the account is
 * recorded in `status.attenuatedServiceAccountRef`, which execution then acts as. Returns the status to
 * continue with and whether the plan may go on.
 */
export function withInstallIdentity<T extends IdentityStatus>(status: T, identity: InstallIdentity, time: string): { status: T; proceed: boolean } {
  const installed = status.conditions?.find((condition) => condition.type === 'Installed');
  if (identity.kind === 'error') {
    const failed: InstallPlanCondition = { type: 'Installed', status: 'False', reason: 'InstallCheckFailed', message: identity.message, lastUpdateTime: time, lastTransitionTime: time };
    return { status: { ...status, conditions: replaceCondition(status.conditions, failed) }, proceed: false };
  }
  let next = status;
  if (installed?.reason === 'InstallCheckFailed') {
    next = { ...next, conditions: replaceCondition(next.conditions, { type: 'Installed', status: 'False', reason: 'Unknown', lastUpdateTime: time, lastTransitionTime: time }) };
  }
  if (identity.kind === 'serviceAccount' && !isSemanticallyEqual(next.attenuatedServiceAccountRef, identity.reference)) {
    next = { ...next, attenuatedServiceAccountRef: identity.reference };
  }
  return { status: next, proceed: true };
}

/** Sets a condition; an unchanged one (status, reason, message) keeps its times, so a retry writes nothing. */
function replaceCondition(conditions: readonly InstallPlanCondition[] | undefined, condition: InstallPlanCondition): InstallPlanCondition[] {
  const previous = conditions?.find((existing) => existing.type === condition.type);
  const same = previous && previous.status === condition.status && (previous.reason ?? '') === (condition.reason ?? '') && (previous.message ?? '') === (condition.message ?? '');
  const kept = same ? previous : previous?.status === condition.status ? { ...condition, lastTransitionTime: previous.lastTransitionTime } : condition;
  return [...(conditions ?? []).filter((existing) => existing.type !== condition.type), kept];
}

/**
 * The client a plan's objects are created with (upstream `ExecutePlan`'s attenuated clients): OLM's own,
 * or, when the plan records `status.attenuatedServiceAccountRef`, OLM's impersonating that account, so
 * the API server authorizes every step as the account. As upstream's token lookup, a deleted account
 * fails the execution (`serviceaccounts "x" not found`).
 */
export async function installerClient(client: KubeClient, plan: AnyObject): Promise<KubeClient> {
  const reference = (plan.status as IdentityStatus | undefined)?.attenuatedServiceAccountRef;
  if (!reference?.name) return client;
  const namespace = reference.namespace || (plan.metadata?.namespace ?? '');
  await client.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace, name: reference.name });
  return client.impersonate({ username: serviceAccountUsername(namespace, reference.name) });
}
