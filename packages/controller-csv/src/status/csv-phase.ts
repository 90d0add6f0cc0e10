import { type ClusterServiceVersionPhase, CSVMessages, CSVPhases, CSVReasons, type RequirementStatus, isSamePhase, setCsvPhase } from '@olm/api';
import { isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import type { EventRecorder } from '@olm/controller-runtime';
import type { InstallStrategy, KubeClient } from '@olm/core';
import { formatTime } from '@olm/go-format';
import { type Csv, csvReference } from '../shared.js';

/** What writing a CSV's phase takes: the client, the clock of status times, and the Event recorder. */
export interface PhaseWriter {
  client(): KubeClient;
  now(): Date;
  recorder(): EventRecorder;
}

/** The install strategies by name (the `installStrategies` point's). */
export interface StrategySource {
  strategies(): ReadonlyMap<string, InstallStrategy>;
}

/** Moves the CSV's status (upstream's SetPhaseWithEventIfChanged), unless another writer moved it first. */
export async function setPhase(
  shared: PhaseWriter,
  csv: Csv,
  phase: ClusterServiceVersionPhase,
  reason: string,
  message: string,
  requirementStatus?: RequirementStatus[],
  rotateAt?: Date,
): Promise<boolean> {
  const status = csv.status ?? {};
  const requirementsChanged = requirementStatus !== undefined && !isSemanticallyEqual(requirementStatus, csv.status?.requirementStatus);
  if (isSamePhase(status, phase, reason, message) && !requirementsChanged) return false;
  const fromPhase = status.phase ?? '';
  let written = false;
  await updateStatus<Csv>(shared.client(), csvReference(csv), (live) => {
    if ((live.status?.phase ?? '') !== fromPhase) return false;
    const now = shared.now();
    const next = setCsvPhase(live.status ?? {}, phase, reason, message, now);
    if (requirementStatus !== undefined) next.requirementStatus = requirementStatus;
    // New serving certificates (upstream sets these when an install rotated them).
    if (rotateAt !== undefined && next.certsRotateAt !== formatTime(rotateAt)) {
      next.certsLastUpdated = formatTime(now);
      next.certsRotateAt = formatTime(rotateAt);
    }
    live.status = next;
    written = true;
  });
  if (written && !isSamePhase(status, phase, reason, message)) {
    void shared.recorder().event(csv, phase === CSVPhases.Failed ? 'Warning' : 'Normal', reason, message);
  }
  return written;
}

export const fail = (shared: PhaseWriter, csv: Csv, reason: string, message: string) => setPhase(shared, csv, CSVPhases.Failed, reason, message);

export function strategyFor(shared: StrategySource, csv: Csv): InstallStrategy | undefined {
  return shared.strategies().get(csv.spec?.install?.strategy ?? '');
}

export async function invalidStrategy(shared: PhaseWriter, csv: Csv, detail = 'unrecognized install strategy'): Promise<void> {
  await fail(shared, csv, CSVReasons.InvalidStrategy, CSVMessages.installStrategyInvalid(detail));
}
