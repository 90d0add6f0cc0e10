import type { Condition } from './meta.js';

export type ConditionFields = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

/**
 * The conditions with `condition` set, as `meta.SetStatusCondition` does: in place, its transition time
 * moved only when the status changes. Undefined when type, status, reason and message are already so.
 */
export function withCondition(conditions: readonly Condition[], condition: ConditionFields, now: string): Condition[] | undefined {
  const index = conditions.findIndex((item) => item.type === condition.type);
  const current = conditions[index];
  if (current && current.status === condition.status && current.reason === condition.reason && current.message === condition.message) return undefined;
  const next: Condition = { ...current, ...condition, lastTransitionTime: current && current.status === condition.status ? current.lastTransitionTime : now };
  return index < 0 ? [...conditions, next] : conditions.map((item, position) => (position === index ? next : item));
}

/** The conditions without the one of `type`; undefined when there is none. */
export function withoutCondition(conditions: readonly Condition[], type: string): Condition[] | undefined {
  return conditions.some((item) => item.type === type) ? conditions.filter((item) => item.type !== type) : undefined;
}
