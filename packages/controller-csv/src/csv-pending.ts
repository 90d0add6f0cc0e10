import { CSVMessages, CSVPhases, CSVReasons } from '@olm/api';
import { isSemanticallyEqual } from '@olm/controller-runtime';
import type { ReconcileContext, ReconcileResult } from '@olm/core';
import { invalidStrategy, type PhaseWriter, setPhase, type StrategySource, strategyFor } from './status/csv-phase.js';
import { crdOwnerConflict, replacedCsv } from './csv-replacement.js';
import { apiServiceOwnerConflict, notUpgradeableReason, type RequirementDependencies, requirementsOf } from './requirements/csv-requirements.js';
import type { Csv } from './shared.js';

/** What the Pending row takes: the phase writer, the strategies, the requirement checks and their requeue. */
export interface PendingDependencies extends PhaseWriter, StrategySource, RequirementDependencies {
  /** Requeue of a CSV whose requirements are not met. */
  readonly requeueAfterMs: number;
}
import { webhookDescriptionProblem } from './serving/webhook-descriptions.js';

/** Pending: the upgrade gate, the install strategy, the requirements and owner conflicts, then InstallReady. */
export async function pending(shared: PendingDependencies, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  const replaced = replacedCsv(csv, context);
  if (replaced) {
    const notUpgradeable = notUpgradeableReason(replaced, context);
    if (notUpgradeable !== undefined) {
      // A change of the OperatorCondition reconciles this CSV again.
      await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.OperatorConditionNotUpgradeable, CSVMessages.notUpgradeable(notUpgradeable));
      return;
    }
  }
  if (!strategyFor(shared, csv)) return invalidStrategy(shared, csv);
  const requirements = await requirementsOf(shared, csv, context);
  if ('invalid' in requirements) return invalidStrategy(shared, csv, requirements.invalid);
  const statuses = requirements.statuses;
  if (!requirements.met) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsNotMet, CSVMessages.requirementsNotFound, statuses);
    return { requeueAfter: shared.requeueAfterMs };
  }
  const webhookProblem = webhookDescriptionProblem(csv);
  if (webhookProblem) {
    await setPhase(shared, csv, CSVPhases.Failed, CSVReasons.InvalidWebhookDescription, webhookProblem, statuses);
    return;
  }
  if (crdOwnerConflict(csv, context)) {
    await setPhase(shared, csv, CSVPhases.Failed, CSVReasons.OwnerConflict, crdOwnerConflictMessage, statuses);
    return;
  }
  if (await apiServiceOwnerConflict(shared, csv, context)) {
    await setPhase(shared, csv, CSVPhases.Failed, CSVReasons.OwnerConflict, apiServiceOwnerConflictMessage, statuses);
    return;
  }
  const previous = replacedCsv(csv, context);
  if (previous && previous.status?.phase !== CSVPhases.Replacing) {
    // Wait for the replaced CSV to be marked Replacing; its change requeues this one.
    if (!isSemanticallyEqual(csv.status?.requirementStatus, statuses)) {
      const status = csv.status ?? {};
      await setPhase(shared, csv, status.phase ?? CSVPhases.Pending, status.reason ?? '', status.message ?? '', statuses);
    }
    return;
  }
  await setPhase(shared, csv, CSVPhases.InstallReady, CSVReasons.RequirementsMet, CSVMessages.allRequirementsFound, statuses);
}

const crdOwnerConflictMessage = 'conflicting CRD owner in namespace';

const apiServiceOwnerConflictMessage = 'unable to adopt APIService';
