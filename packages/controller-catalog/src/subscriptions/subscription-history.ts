import { appendInstallHistory, ProjectAnnotations, readInstallHistory } from '@olm/api';
import type { KubeClient } from '@olm/core';
import { isConflict, isNotFound } from '@olm/controller-runtime';
import { formatTime } from '@olm/go-format';
import { Kinds, type CsvObject } from '../kinds.js';
import type { LiveSubscription } from '../resolution/namespace-snapshot.js';

/**
 * Appends the Subscription's installed CSV to its install history annotation when the history does not
 * end with it (`olm history` and `olm rollback` read it). The patch carries the resourceVersion read, so
 * an edit made meanwhile (a rollback carrying the history over) is never overwritten: the newer
 * object's own event brings the Subscription back here.
 */
export async function recordInstallHistory(client: KubeClient, subscription: LiveSubscription, now: Date, fieldManager: string): Promise<void> {
  const installed = subscription.status?.installedCSV;
  if (!installed) return;
  const history = readInstallHistory(subscription.metadata?.annotations);
  if (history.at(-1)?.csv === installed) return;
  const namespace = subscription.metadata?.namespace ?? '';
  // Read live, once per new revision: this reconciler does not watch CSVs, so its cache may not hold them.
  const csv = await client.find<CsvObject>({ ...Kinds.clusterServiceVersion, namespace, name: installed });
  const planName = subscription.status?.installPlanRef?.name;
  const entry = {
    csv: installed,
    ...(csv?.spec?.version ? { version: String(csv.spec.version) } : {}),
    installedAt: formatTime(now),
    ...(planName ? { installPlan: planName } : {}),
  };
  const patch = {
    metadata: {
      resourceVersion: subscription.metadata?.resourceVersion,
      annotations: { [ProjectAnnotations.installHistory]: JSON.stringify(appendInstallHistory(history, entry)) },
    },
  };
  try {
    await client.patch({ ...Kinds.subscription, namespace, name: subscription.metadata?.name ?? '' }, patch, { type: 'merge', fieldManager });
  } catch (error) {
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}
