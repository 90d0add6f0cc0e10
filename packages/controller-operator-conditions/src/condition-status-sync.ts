import type { Condition } from '@olm/api';

/**
 * The status conditions once the operator's `spec.conditions` are mirrored into them, or undefined
 * when nothing is to change (upstream `syncOperatorConditionStatus`). A spec condition is copied when
 * status has none of its type, or one with another status or observed for another generation; the
 * copy is observed at `generation`, and keeps its `lastTransitionTime` while the status stays
 * (`meta.SetStatusCondition`). Status conditions of other types (the operator's own, written to
 * status directly) stay.
 */
export function mirroredStatusConditions(
  specConditions: readonly Condition[] | undefined,
  statusConditions: readonly Condition[] | undefined,
  generation: number,
  now: string,
): Condition[] | undefined {
  const result = (statusConditions ?? []).map((condition) => ({ ...condition }));
  let changed = false;
  for (const wanted of specConditions ?? []) {
    if (typeof wanted?.type !== 'string' || wanted.type === '' || typeof wanted.status !== 'string') continue;
    const index = result.findIndex((condition) => condition.type === wanted.type);
    const existing = index >= 0 ? result[index] : undefined;
    if (existing && existing.status === wanted.status && existing.observedGeneration === generation) continue;
    const transitioned = !existing || existing.status !== wanted.status;
    const next: Condition = {
      type: wanted.type,
      status: wanted.status,
      observedGeneration: generation,
      lastTransitionTime: transitioned ? wanted.lastTransitionTime || now : existing.lastTransitionTime,
      reason: wanted.reason ?? '',
      message: wanted.message ?? '',
    };
    if (existing) result[index] = next;
    else result.push(next);
    changed = true;
  }
  return changed ? result : undefined;
}
