import { formatTime } from '@olm/go-format';
import type { ClusterServiceVersionPhase, ClusterServiceVersionStatus } from './cluster-service-version.js';

/** Upstream keeps the newest 20 entries of a CSV's `status.conditions`. */
export const conditionsLengthLimit = 20;

/**
 * Moves a CSV status to a phase the way upstream's SetPhase does: the update time always moves,
 * the transition time only when the phase changes, and a history entry is appended only when the
 * phase or the reason differs from the newest entry.
 */
export function setCsvPhase(status: ClusterServiceVersionStatus, phase: ClusterServiceVersionPhase, reason: string, message: string, now: Date): ClusterServiceVersionStatus {
  const time = formatTime(now);
  const transitioned = status.phase !== phase;
  const lastTransitionTime = transitioned ? time : (status.lastTransitionTime ?? time);
  const history = [...(status.conditions ?? [])];
  const newest = history[history.length - 1];
  if (!newest || newest.phase !== phase || newest.reason !== reason) {
    history.push({ phase, reason, message, lastUpdateTime: time, lastTransitionTime });
  }
  return {
    ...status,
    phase,
    reason,
    message,
    lastUpdateTime: time,
    lastTransitionTime,
    conditions: history.slice(-conditionsLengthLimit),
  };
}

/** True when a transition would change nothing a user sees (upstream's "IfChanged" variants skip it). */
export function isSamePhase(status: ClusterServiceVersionStatus, phase: string, reason: string, message: string): boolean {
  return status.phase === phase && status.reason === reason && status.message === message;
}
