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
 * when its type is new), its `lastTransitionTime` carried over while the status stays the same.
 */
export function withCondition<C extends ConditionState>(conditions: readonly C[] | undefined, condition: C): C[] {
  const list = conditions ?? [];
  const index = list.findIndex((existing) => existing.type === condition.type);
  if (index < 0) return [...list, condition];
  const previous = list[index]!;
  const next = previous.status === condition.status && previous.lastTransitionTime ? { ...condition, lastTransitionTime: previous.lastTransitionTime } : condition;
  return list.map((existing, position) => (position === index ? next : existing));
}

/** `conditions` without those of `types`. */
export function withoutConditions<C extends ConditionState>(conditions: readonly C[] | undefined, types: readonly string[]): C[] {
  return (conditions ?? []).filter((condition) => !types.includes(condition.type ?? ''));
}
