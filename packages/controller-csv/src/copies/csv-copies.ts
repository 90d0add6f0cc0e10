import { Annotations, CSVMessages, CSVPhases, CSVReasons, CSVUncopiableReasons, Labels, OLMConfigConditionTypes, OLMConfigMessages, isCopied } from '@olm/api';
import { isNamespaceTerminating, isNotFound, yieldToEventLoop } from '@olm/controller-runtime';
import { type CachedObject, describeError, type ObjectReader, type ReconcileContext } from '@olm/core';
import type { EventRecorder } from '@olm/controller-runtime';
import type { KubeClient } from '@olm/core';
import { allNamespacesCopyTargets, copiedCsvsEnabled } from './copied-csvs-config.js';
import type { CsvMemory } from '../csv-memory.js';
import { fieldManager, Kinds } from '../kinds.js';
import { clusterOlmConfig, type Csv, csvReference, namespaceViews, namespaceViewsOf } from '../shared.js';
import { hashOf } from '../spec-hash.js';
import { syncTargetRbac, type TargetRbacDependencies } from './target-rbac.js';

// Copied CSVs (§2.7): a CSV's copies in its group's target namespaces, and the OLMConfig's switch for them.

/** Where copies go. */
export interface CopyOptions {
  /** Copy CSVs into their OperatorGroup's target namespaces at all. */
  readonly copiedCsvsEnabled: boolean;
  /** Namespaces that keep the copies of AllNamespaces operators while the OLMConfig disables copies. */
  readonly protectedCopiedCsvNamespaces: ReadonlySet<string>;
}

/** What writing copies takes. */
interface CopyServices extends CopyOptions {
  client(): KubeClient;
  recorder(): EventRecorder;
}

/** What a CSV's copies and its RBAC in the target namespaces take. */
export interface CopyDependencies extends CopyServices, TargetRbacDependencies {}

/**
 * After the phase step, from the CSV's latest cached state: its copies, its RBAC in the target namespaces
 * and the `DisabledCopiedCSVs` Event.
 */
export async function syncCopiesAndRbac(shared: CopyDependencies, memory: CsvMemory, csv: Csv, context: ReconcileContext): Promise<void> {
  const latest = (context.cache.get(Kinds.clusterServiceVersion, csv.metadata.name, csv.metadata.namespace)) ?? csv;
  const copies = await syncCopies(shared, latest, context).catch((error: unknown) => {
    context.logger.warn('could not sync copied CSVs', { error: describeError(error) });
    return copiesOf(context.cache, latest);
  });
  await syncTargetRbac(shared, memory.generatedRbac, latest, copies, context);
  await syncCopyingDisabledEvent(shared, memory, latest, context).catch((error: unknown) => {
    context.logger.warn('could not sync the DisabledCopiedCSVs event', { error: describeError(error) });
  });
}

/**
 * On a copy, hashes of what it was copied from (upstream's annotations): whether a copy is current is two
 * string comparisons, without reading (or caching) its spec and status.
 */
export const CopyHashAnnotations = {
  nonStatus: 'olm.operatorframework.io/nonStatusCopyHash',
  status: 'olm.operatorframework.io/statusCopyHash',
} as const;

export function copiesOf(cache: ObjectReader, csv: Csv): Csv[] {
  // From the label index: the copies of this namespace's CSVs only.
  return (cache.list(Kinds.clusterServiceVersion, { labelSelector: `${Labels.copiedFrom}=${csv.metadata.namespace}` })).filter(
    (item) => item.metadata.name === csv.metadata.name,
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
    // Disabled: only the protected namespaces are looked at, so the cost does not grow with the namespaces.
    const namespaces = enabled ? namespaceViews(context.cache) : namespaceViewsOf(context.cache, shared.protectedCopiedCsvNamespaces);
    return allNamespacesCopyTargets(csv.metadata.namespace, namespaces, enabled, shared.protectedCopiedCsvNamespaces);
  }
  return annotation.split(',').filter((name) => name !== '' && name !== csv.metadata.namespace);
}

/** Whether a namespace is one of the CSV's copy targets: `copyTargets(…).includes(namespace)` without building the list. */
function isCopyTarget(shared: CopyOptions, csv: Csv, namespace: string, context: ReconcileContext): boolean {
  const annotation = copiableTargets(shared, csv, context);
  if (annotation === undefined || namespace === csv.metadata.namespace) return false;
  if (annotation !== '') return annotation.split(',').includes(namespace);
  const view = context.cache.get(Kinds.namespace, namespace);
  if (!view || view.status?.phase === 'Terminating') return false;
  return copiedCsvsEnabled(clusterOlmConfig(context.cache)) || shared.protectedCopiedCsvNamespaces.has(namespace);
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
 * Returns the copies as stored (their UIDs own the RBAC copied next to them). A copy carrying the hashes
 * of the source's current spec and status needs no API call; the pass gives the event loop a turn every
 * few milliseconds (an AllNamespaces operator has a copy in each of thousands of namespaces).
 */
async function syncCopies(shared: CopyServices, csv: Csv, context: ReconcileContext): Promise<Csv[]> {
  const client = shared.client();
  const targets = new Set(copyTargets(shared, csv, context));
  // Namespaces being deleted refuse new copies, and their namespace controller removes the old ones;
  // a target namespace that does not exist (yet) gets its copy when it appears.
  const terminating = (namespace: string) => isNamespaceTerminating(context.cache, namespace);
  const missing = (namespace: string) => context.cache.get(Kinds.namespace, namespace) === undefined;
  await deleteCopies(client, copiesOf(context.cache, csv).filter((copy) => !targets.has(copy.metadata.namespace) && !terminating(copy.metadata.namespace)), context);
  const copies: Csv[] = [];
  if (targets.size === 0) return copies;
  const desired = desiredCopy(csv);
  for (const namespace of targets) {
    if (context.signal.aborted) return copies;
    if (terminating(namespace) || missing(namespace)) continue;
    const live = context.cache.get(Kinds.clusterServiceVersion, csv.metadata.name, namespace);
    if (live && !isCopied(live)) continue; // a real CSV of that name lives there
    const stored = await writeCopy(client, desired, namespace, live, context);
    if (stored) copies.push(stored);
    await yieldToEventLoop();
  }
  return copies;
}

/** Copies deleted at once: turning copies off removes one per namespace and operator, tens of thousands. */
const copyDeleteConcurrency = 16;

async function deleteCopies(client: ReturnType<CopyServices['client']>, copies: readonly Csv[], context: ReconcileContext): Promise<void> {
  for (let start = 0; start < copies.length && !context.signal.aborted; start += copyDeleteConcurrency) {
    await Promise.all(
      copies.slice(start, start + copyDeleteConcurrency).map((copy) =>
        client.delete(csvReference(copy)).catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        }),
      ),
    );
  }
}

interface DesiredCopy {
  readonly base: Csv;
  readonly status: NonNullable<Csv['status']>;
  readonly nonStatusHash: string;
  readonly statusHash: string;
}

/** What every copy of the CSV holds (metadata but the namespace, spec, status), with its hashes: computed once per pass. */
function desiredCopy(csv: Csv): DesiredCopy {
  const annotations = { ...(csv.metadata.annotations ?? {}) };
  delete annotations[Annotations.targetNamespaces];
  delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  delete annotations[CopyHashAnnotations.nonStatus];
  delete annotations[CopyHashAnnotations.status];
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(csv.metadata.labels ?? {})) {
    if (!key.startsWith('operators.coreos.com/')) labels[key] = value;
  }
  labels[Labels.copiedFrom] = csv.metadata.namespace;
  const { lastUpdateTime: _ignored, requirementStatus: _dropped, ...status } = { ...(csv.status ?? {}) } as NonNullable<Csv['status']> & {
    lastUpdateTime?: string;
    requirementStatus?: unknown;
  };
  const copyStatus = { ...status, reason: CSVReasons.Copied, message: CSVMessages.copied(csv.metadata.namespace) } as NonNullable<Csv['status']>;
  const nonStatusHash = hashOf({ spec: csv.spec, annotations, labels });
  const statusHash = hashOf(copyStatus);
  const base = {
    apiVersion: csv.apiVersion,
    kind: csv.kind,
    metadata: { name: csv.metadata.name, namespace: '', annotations: { ...annotations, [CopyHashAnnotations.nonStatus]: nonStatusHash, [CopyHashAnnotations.status]: statusHash }, labels },
    spec: csv.spec,
  } as Csv;
  const lastUpdateTime = (csv.status as { lastUpdateTime?: string } | undefined)?.lastUpdateTime;
  return { base, status: { ...copyStatus, ...(lastUpdateTime ? { lastUpdateTime } : {}) } as NonNullable<Csv['status']>, nonStatusHash, statusHash };
}

/** Creates or brings up to date one copy; none written when its hashes are current. */
async function writeCopy(client: ReturnType<CopyServices['client']>, desired: DesiredCopy, namespace: string, live: Csv | undefined, context: ReconcileContext): Promise<Csv | undefined> {
  const annotations = live?.metadata.annotations;
  if (live && annotations?.[CopyHashAnnotations.nonStatus] === desired.nonStatusHash && annotations?.[CopyHashAnnotations.status] === desired.statusHash) return live;
  const copy = { ...desired.base, metadata: { ...desired.base.metadata, namespace } } as Csv;
  let stored: Csv;
  if (!live) {
    try {
      stored = await client.create(copy, { fieldManager });
    } catch (error) {
      if (context.signal.aborted) return undefined;
      throw error;
    }
  } else {
    stored = await client.replace({ ...copy, metadata: { ...copy.metadata, resourceVersion: live.metadata.resourceVersion } } as Csv);
  }
  return client.replaceStatus({ ...stored, status: desired.status } as Csv);
}

/** A copy whose source is gone or no longer targets its namespace is deleted. */
export async function reconcileCopy(shared: CopyServices, copy: Csv, context: ReconcileContext): Promise<void> {
  const sourceNamespace = copy.metadata.labels?.[Labels.copiedFrom];
  if (!sourceNamespace) return;
  const source = context.cache.get(Kinds.clusterServiceVersion, copy.metadata.name, sourceNamespace);
  if (source && !source.metadata.deletionTimestamp && isCopyTarget(shared, source, copy.metadata.namespace, context)) return;
  await shared.client().delete(csvReference(copy)).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
}
