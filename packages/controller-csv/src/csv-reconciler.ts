import { CSVMessages, CSVPhases, CSVReasons, isCopied } from '@olm/api';
import { isNamespaceTerminating, isNotFound } from '@olm/controller-runtime';
import { describeError, type ReconcileContext, type Reconciler, type ReconcileRequest, type ReconcileResult } from '@olm/core';
import { reconcileCopy, syncCopiesAndRbac } from './copies/csv-copies.js';
import { deleteDroppedWebhookConfigurations, ensureFinalizer, finalize, forgetGoneCsv } from './csv-finalizer.js';
import { failed, succeeded } from './status/csv-health.js';
import { installing, installReady } from './install/csv-install.js';
import { CsvMemory } from './csv-memory.js';
import { pending } from './csv-pending.js';
import { setPhase } from './status/csv-phase.js';
import { preChecks } from './groups/csv-pre-checks.js';
import { replacing } from './csv-replacement.js';
import { proceed } from './csv-step.js';
import { csvWatches } from './csv-watches.js';
import { Kinds } from './kinds.js';
import { type Csv, csvReference, type Shared, sourceCsvs } from './shared.js';

/** The ClusterServiceVersion reconciler: pre-checks, then one phase transition per sync, as upstream. */
export function createCsvReconciler(shared: Shared): Reconciler {
  const memory = new CsvMemory();
  return {
    name: 'csv',
    for: Kinds.clusterServiceVersion,
    owns: [Kinds.deployment],
    watches: csvWatches(shared, memory),
    async reconcile(request, context) {
      return reconcileCsv(shared, memory, request, context);
    },
  };
}

/**
 * One sync of a CSV, as upstream's: a copy or a deleted CSV has steps of its own; otherwise the
 * pre-checks (group membership, install modes, provided APIs), at most one phase transition
 * (requirements, install strategy, health, replacement), then its copies and target-namespace RBAC.
 */
async function reconcileCsv(shared: Shared, memory: CsvMemory, request: ReconcileRequest, context: ReconcileContext): Promise<ReconcileResult | void> {
  const namespace = request.namespace ?? '';
  const cached = context.cache.get(Kinds.clusterServiceVersion, request.name, namespace);
  shared.metrics()?.setCount(sourceCsvs(context.cache).length);
  if (!cached) return forgetGoneCsv(shared, memory, namespace, request.name, context);
  if (cached.metadata.deletionTimestamp && !isCopied(cached)) return finalize(shared, memory, cached, context);
  // A namespace being deleted refuses new content: nothing is installed or copied there, and the namespace
  // controller removes what is in it (a deleted CSV's finalizer still runs, above).
  if (isNamespaceTerminating(context.cache, namespace)) return;
  if (isCopied(cached)) return reconcileCopy(shared, cached, context);
  observeMetrics(shared, cached);
  const csv = await ensureFinalizer(shared, cached);
  await deleteDroppedWebhookConfigurations(shared, memory, csv).catch((error: unknown) => {
    context.logger.warn('could not delete the webhook configurations of removed webhooks', { error: describeError(error) });
  });
  const checked = await preChecks(shared, memory, csv, context);
  const result = checked === proceed ? await transitionPhase(shared, csv, context) : checked;
  await syncCopiesAndRbac(shared, memory, csv, context);
  return result;
}

/** Each status write brings another reconcile, which records the state written. */
function observeMetrics(shared: Shared, csv: Csv): void {
  shared.metrics()?.observe({
    namespace: csv.metadata.namespace,
    name: csv.metadata.name,
    version: csv.spec?.version ?? '',
    phase: csv.status?.phase ?? '',
    reason: csv.status?.reason ?? '',
  });
}

async function transitionPhase(shared: Shared, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  const phase = csv.status?.phase ?? CSVPhases.None;
  switch (phase) {
    case CSVPhases.None:
      await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsUnknown, CSVMessages.requirementsNotYetChecked);
      return;
    case CSVPhases.Pending:
      return pending(shared, csv, context);
    case CSVPhases.InstallReady:
      return installReady(shared, csv, context);
    case CSVPhases.Installing:
      return installing(shared, csv, context);
    case CSVPhases.Succeeded:
      return succeeded(shared, csv, context);
    case CSVPhases.Failed:
      return failed(shared, csv, context);
    case CSVPhases.Replacing:
      return replacing(shared, csv, context);
    case CSVPhases.Deleting:
      await shared.client().delete(csvReference(csv)).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      return;
    default:
      return;
  }
}
