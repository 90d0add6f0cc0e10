import { CSVCleanupFinalizer } from '@olm/api';
import { isNotFound, updateObject } from '@olm/controller-runtime';
import type { ReconcileContext } from '@olm/core';
import { deleteOwnedApiServices } from './serving/api-services.js';
import { deleteAuthReaderBindings } from './serving/cert-install.js';
import { hasCertResources } from './serving/cert-resources.js';
import { copiesOf } from './copies/csv-copies.js';
import type { CsvMemory } from './csv-memory.js';
import { type Csv, csvReference } from './shared.js';
import type { CsvMetrics } from './status/metrics.js';
import { deleteTargetRbac, type TargetRbacDependencies } from './copies/target-rbac.js';
import { deleteWebhookConfigurations } from './serving/webhooks.js';

/** What removing a CSV's leftovers takes: the client, the RBAC generator (whose objects it deletes), the metrics it forgets. */
interface FinalizerServices extends TargetRbacDependencies {
  metrics(): CsvMetrics | undefined;
}

/**
 * A CSV that is gone: forget it, and delete the copied RBAC it left (it went without its finalizer; only
 * OLM makes copies, so they are orphans).
 */
export async function forgetGoneCsv(shared: FinalizerServices, memory: CsvMemory, namespace: string, name: string, context: ReconcileContext): Promise<void> {
  shared.metrics()?.forget(namespace, name);
  memory.forget(namespace, name);
  await deleteTargetRbac(shared.client(), namespace, name, context.cache, { clusterScoped: false, ownership: shared.rbac().ownership });
}

/**
 * A CSV that no longer has webhooks or owned APIServices has no serving snapshot whose check would
 * delete the configurations of removed webhooks (upstream checks webhooks on every CSV): they are deleted
 * by owner label here, once per spec change. A CSV never edited (generation 1) has nothing to delete.
 */
export async function deleteDroppedWebhookConfigurations(shared: Pick<TargetRbacDependencies, 'client'>, memory: Pick<CsvMemory, 'webhookCleanups'>, csv: Csv): Promise<void> {
  const generation = csv.metadata.generation ?? 1;
  if (generation <= 1 || hasCertResources(csv)) return;
  const key = `${csv.metadata.namespace}/${csv.metadata.name}`;
  const version = `${csv.metadata.uid ?? ''}/${generation}`;
  if (memory.webhookCleanups.get(key) === version) return;
  await deleteWebhookConfigurations(shared.client(), csv);
  memory.webhookCleanups.set(key, version);
}

export async function ensureFinalizer(shared: Pick<TargetRbacDependencies, 'client'>, csv: Csv): Promise<Csv> {
  if (csv.metadata.finalizers?.includes(CSVCleanupFinalizer)) return csv;
  return updateObject<Csv>(shared.client(), csvReference(csv), (live) => {
    if (live.metadata.finalizers?.includes(CSVCleanupFinalizer)) return false;
    live.metadata.finalizers = [...(live.metadata.finalizers ?? []), CSVCleanupFinalizer];
  });
}

/** On deletion: remove the CSV's copies and the RBAC made for its target namespaces, then the finalizer. */
export async function finalize(shared: FinalizerServices, memory: CsvMemory, csv: Csv, context: ReconcileContext): Promise<void> {
  shared.metrics()?.forget(csv.metadata.namespace, csv.metadata.name);
  memory.forget(csv.metadata.namespace, csv.metadata.name);
  const client = shared.client();
  for (const copy of copiesOf(context.cache, csv)) {
    await client.delete(csvReference(copy)).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
  await deleteTargetRbac(client, csv.metadata.namespace, csv.metadata.name, context.cache, { clusterScoped: true, ownership: shared.rbac().ownership });
  // What it owns outside its namespace (its namespaced objects go with their owner references).
  await deleteOwnedApiServices(client, csv);
  await deleteWebhookConfigurations(client, csv);
  await deleteAuthReaderBindings(client, csv);
  if (!csv.metadata.finalizers?.includes(CSVCleanupFinalizer)) return;
  try {
    await updateObject<Csv>(client, csvReference(csv), (live) => {
      if (!live.metadata.finalizers?.includes(CSVCleanupFinalizer)) return false;
      live.metadata.finalizers = live.metadata.finalizers.filter((finalizer) => finalizer !== CSVCleanupFinalizer);
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
