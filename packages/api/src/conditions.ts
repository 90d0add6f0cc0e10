import type { Condition } from './meta.js';

/** The fields every OLM condition list shares (metav1.Condition, SubscriptionCondition, InstallPlanCondition, …). */
export interface ConditionState {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
}

/** Upstream compares conditions by type, status, reason and message, never by time. */
export function sameConditionState(a: ConditionState | undefined, b: ConditionState | undefined): boolean {
  return a?.type === b?.type && a?.status === b?.status && (a?.reason ?? '') === (b?.reason ?? '') && (a?.message ?? '') === (b?.message ?? '');
}

/**
 * `conditions` with `condition` set as upstream's `SetCondition` helpers do: replaced in place (appended
 * when its type is new), its `lastTransitionTime` carried over while the status stays the same
 * (InstallPlans, `meta.SetStatusCondition`). Subscriptions replace the condition whole, time included:
 * pass `{ keepTransitionTime: false }`.
 */
export function withCondition<C extends ConditionState>(conditions: readonly C[] | undefined, condition: C, options: { readonly keepTransitionTime?: boolean } = {}): C[] {
  const list = conditions ?? [];
  const index = list.findIndex((existing) => existing.type === condition.type);
  if (index < 0) return [...list, condition];
  const previous = list[index]!;
  const keep = options.keepTransitionTime !== false && previous.status === condition.status && previous.lastTransitionTime;
  const next = keep ? { ...condition, lastTransitionTime: previous.lastTransitionTime } : condition;
  return list.map((existing, position) => (position === index ? next : existing));
}

export type ConditionFields = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/**
 * `metav1.Condition`s with `condition` set as `meta.SetStatusCondition` does (see `withCondition`), a new
 * transition time being `now`; undefined when type, status, reason and message are already so.
 */
export function updatedConditions(conditions: readonly Condition[], condition: ConditionFields, now: string): Condition[] | undefined {
  const current = conditions.find((item) => item.type === condition.type);
  if (current && sameConditionState(current, condition)) return undefined;
  return withCondition(conditions, { ...current, ...condition, lastTransitionTime: now });
}

/** The conditions without the one of `type`; undefined when there is none. */
export function withoutCondition<C extends ConditionState>(conditions: readonly C[], type: string): C[] | undefined {
  return conditions.some((item) => item.type === type) ? conditions.filter((item) => item.type !== type) : undefined;
}
