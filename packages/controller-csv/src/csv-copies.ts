import { Annotations, CSVMessages, CSVPhases, CSVReasons, CSVUncopiableReasons, Labels, OLMConfigConditionTypes, OLMConfigMessages, isCopied } from '@olm/api';
import { isNamespaceTerminating, isNotFound, isSemanticallyEqual } from '@olm/controller-runtime';
import { type CachedObject, describeError, type ObjectReader, type ReconcileContext } from '@olm/core';
import { allNamespacesCopyTargets, copiedCsvsEnabled } from './copied-csvs-config.js';
import type { CsvMemory } from './csv-memory.js';
import { fieldManager, Kinds } from './kinds.js';
import { clusterOlmConfig, type Csv, csvReference, namespaceViews, type Shared } from './shared.js';
import { syncTargetRbac } from './target-rbac.js';

// Copied CSVs (§2.7): a CSV's copies in its group's target namespaces, and the OLMConfig's switch for them.

/** Where copies go. */
type CopyOptions = Pick<Shared, 'copiedCsvsEnabled' | 'protectedCopiedCsvNamespaces'>;
/** What writing copies takes. */
type CopyServices = CopyOptions & Pick<Shared, 'client' | 'recorder'>;

/**
 * After the phase step, from the CSV's latest cached state: its copies, its RBAC in the target namespaces
 * and the `DisabledCopiedCSVs` Event.
 */
export async function syncCopiesAndRbac(shared: Shared, memory: CsvMemory, csv: Csv, context: ReconcileContext): Promise<void> {
  const latest = (context.cache.get(Kinds.clusterServiceVersion, csv.metadata.name, csv.metadata.namespace) as Csv | undefined) ?? csv;
  const copies = await syncCopies(shared, latest, context).catch((error: unknown) => {
    context.logger.warn('could not sync copied CSVs', { error: describeError(error) });
    return copiesOf(context.cache, latest);
  });
  await syncTargetRbac(shared, memory.generatedRbac, latest, copies, context);
  await syncCopyingDisabledEvent(shared, memory, latest, context).catch((error: unknown) => {
    context.logger.warn('could not sync the DisabledCopiedCSVs event', { error: describeError(error) });
  });
}

export function copiesOf(cache: ObjectReader, csv: Csv): Csv[] {
  return (cache.list(Kinds.clusterServiceVersion) as Csv[]).filter(
    (item) => item.metadata.name === csv.metadata.name && item.metadata.labels?.[Labels.copiedFrom] === csv.metadata.namespace,
  );
}

/** The CSV's `olm.targetNamespaces` when it is copiable and the only group of its namespace is its own. */
function copiableTargets(shared: CopyOptions, csv: Csv, context: ReconcileContext): string | undefined {
  if (!shared.copiedCsvsEnabled) return undefined;
  const phase = csv.status?.phase ?? '';
  if (phase === CSVPhases.None || (CSVUncopiableReasons as readonly string[]).includes(csv.status?.reason ?? '')) return undefined;
  const annotation = csv.metadata.annotations?.[Annotations.targetNamespaces];
  if (annotation === undefined) return undefined;
  const groups = context.cache.list(Kinds.operatorGroup, { namespace: csv.metadata.namespace });
  return groups.length === 1 ? annotation : undefined;
}

/**
 * The namespaces the CSV is copied to: its targets, or for an AllNamespaces operator every other
 * namespace, unless the OLMConfig `cluster` disables copies (then only the protected namespaces).
 */
function copyTargets(shared: CopyOptions, csv: Csv, context: ReconcileContext): string[] {
  const annotation = copiableTargets(shared, csv, context);
  if (annotation === undefined) return [];
  if (annotation === '') {
    const enabled = copiedCsvsEnabled(clusterOlmConfig(context.cache));
    return allNamespacesCopyTargets(csv.metadata.namespace, namespaceViews(context.cache), enabled, shared.protectedCopiedCsvNamespaces);
  }
  return annotation.split(',').filter((name) => name !== '' && name !== csv.metadata.namespace);
}

/**
 * Upstream's Event on an AllNamespaces operator whose copies the OLMConfig disables: one Warning
 * `DisabledCopiedCSVs` "CSV copying disabled for <ns>/<name>" (more than one are replaced by one), removed
 * once copies are enabled again. Events are not cached: they are listed when the state may have changed.
 */
async function syncCopyingDisabledEvent(shared: CopyServices, memory: Pick<CsvMemory, 'copyingDisabledEvents'>, csv: Csv, context: ReconcileContext): Promise<void> {
  if (copiableTargets(shared, csv, context) !== '' || csv.metadata.deletionTimestamp) return;
  const key = `${csv.metadata.namespace}/${csv.metadata.name}`;
  const uid = csv.metadata.uid ?? '';
  const disabled = !copiedCsvsEnabled(clusterOlmConfig(context.cache));
  const known = memory.copyingDisabledEvents.get(key);
  if (known && known.uid === uid && known.disabled === disabled) return;
  const client = shared.client();
  const listed = await client.list<CachedObject & { reason?: string; involvedObject?: { uid?: string } }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: csv.metadata.namespace, fieldSelector: `involvedObject.name=${csv.metadata.name}` },
  );
  const events = listed.items.filter((event) => event.reason === OLMConfigConditionTypes.DisabledCopiedCSVs && event.involvedObject?.uid === uid);
  if (!disabled || events.length > 1) {
    for (const event of events) {
      await client.delete({ apiVersion: 'v1', kind: 'Event', namespace: csv.metadata.namespace, name: event.metadata?.name ?? '' }).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
  }
  if (disabled && events.length !== 1) {
    await shared.recorder().warning(csv, OLMConfigConditionTypes.DisabledCopiedCSVs, OLMConfigMessages.csvCopyingDisabled(csv.metadata.namespace, csv.metadata.name));
  }
  memory.copyingDisabledEvents.set(key, { uid, disabled });
}

/**
 * Copies the CSV to each target namespace other than its own, and removes copies no longer targeted.
 * Returns the copies as stored (their UIDs own the RBAC copied next to them).
 */
async function syncCopies(shared: CopyServices, csv: Csv, context: ReconcileContext): Promise<Csv[]> {
  const client = shared.client();
  const targets = new Set(copyTargets(shared, csv, context));
  // Namespaces being deleted refuse new copies, and their namespace controller removes the old ones;
  // a target namespace that does not exist (yet) gets its copy when it appears.
  const terminating = (namespace: string) => isNamespaceTerminating(context.cache, namespace);
  const missing = (namespace: string) => context.cache.get(Kinds.namespace, namespace) === undefined;
  const existing = copiesOf(context.cache, csv);
  for (const copy of existing) {
    if (!targets.has(copy.metadata.namespace) && !terminating(copy.metadata.namespace)) {
      await client.delete(csvReference(copy)).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
  }
  const copies: Csv[] = [];
  if (targets.size === 0) return copies;
  const annotations = { ...(csv.metadata.annotations ?? {}) };
  delete annotations[Annotations.targetNamespaces];
  delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(csv.metadata.labels ?? {})) {
    if (!key.startsWith('operators.coreos.com/')) labels[key] = value;
  }
  labels[Labels.copiedFrom] = csv.metadata.namespace;
  const status = { ...(csv.status ?? {}), reason: CSVReasons.Copied, message: CSVMessages.copied(csv.metadata.namespace) };
  delete (status as { requirementStatus?: unknown }).requirementStatus;
  for (const namespace of targets) {
    if (terminating(namespace) || missing(namespace)) continue;
    const live = context.cache.get(Kinds.clusterServiceVersion, csv.metadata.name, namespace) as Csv | undefined;
    if (live && !isCopied(live)) continue; // a real CSV of that name lives there
    const desired = {
      apiVersion: csv.apiVersion,
      kind: csv.kind,
      metadata: { name: csv.metadata.name, namespace, annotations, labels },
      spec: csv.spec,
    } as Csv;
    let stored: Csv | undefined = live;
    if (!live) {
      try {
        stored = await client.create(desired, { fieldManager });
      } catch (error) {
        if (context.signal.aborted) return copies;
        throw error;
      }
    } else if (!isSemanticallyEqual([live.spec, live.metadata.annotations, live.metadata.labels], [desired.spec, annotations, labels])) {
      stored = await client.replace({ ...desired, metadata: { ...desired.metadata, resourceVersion: live.metadata.resourceVersion } } as Csv);
    }
    const comparable = (value: unknown) => {
      const { lastUpdateTime: _ignored, ...rest } = (value ?? {}) as Record<string, unknown>;
      return rest;
    };
    if (stored && !isSemanticallyEqual(comparable(stored.status), comparable(status))) {
      stored = await client.replaceStatus({ ...stored, status } as Csv);
    }
    if (stored) copies.push(stored);
  }
  return copies;
}

/** A copy whose source is gone or no longer targets its namespace is deleted. */
export async function reconcileCopy(shared: CopyServices, copy: Csv, context: ReconcileContext): Promise<void> {
  const sourceNamespace = copy.metadata.labels?.[Labels.copiedFrom];
  if (!sourceNamespace) return;
  const source = context.cache.get(Kinds.clusterServiceVersion, copy.metadata.name, sourceNamespace) as Csv | undefined;
  if (source && !source.metadata.deletionTimestamp && copyTargets(shared, source, context).includes(copy.metadata.namespace)) return;
  await shared.client().delete(csvReference(copy)).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
}
