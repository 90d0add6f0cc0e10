import type { OLMConfig } from '@olm/api';
import { Labels, OLMConfigName, updatedConditions, isCopied } from '@olm/api';
import type { CachedObject, KubeClient, ObjectReader, ReconcileContext, ReconcileRequest, Reconciler } from '@olm/core';
import { isAlreadyExists, updateStatus, yieldToEventLoop } from '@olm/controller-runtime';
import { formatTime } from '@olm/go-format';
import { allNamespacesCopyTargets, copiedCsvsCondition, copiedCsvsEnabled } from './copied-csvs-config.js';
import { fieldManager, Kinds } from '../kinds.js';
import { clusterOlmConfig, namespaceViews, namespaceViewsOf, type Og } from '../shared.js';
import type { CopyOptions } from './csv-copies.js';

/** What the OLMConfig reconciler takes: where copies go, the client and the clock of condition times. */
export interface OlmConfigDependencies extends CopyOptions {
  client(): KubeClient;
  now(): Date;
}

const clusterConfig: ReconcileRequest = { name: OLMConfigName };

/**
 * The condition reads every copy of every AllNamespaces operator (50,000 at 10,000 namespaces x 5), and
 * each copy written is an event: looked at on every event, the cost would grow with the square of the
 * copies. So it is looked at once a second at most; the events in between fold into the next look.
 */
export const conditionCheckIntervalMs = 1_000;

/**
 * The OLMConfig reconciler (upstream `syncOLMConfig`): the `DisabledCopiedCSVs` condition of the OLMConfig
 * `cluster`, telling whether the copies of every AllNamespaces operator are where the config wants them.
 * The CSV reconciler makes and deletes the copies; this one reports on them, so it looks again whenever a
 * copy, an AllNamespaces operator, a group or a namespace changes.
 */
export function createOlmConfigReconciler(shared: OlmConfigDependencies): Reconciler {
  let lastCheckAt = Number.NEGATIVE_INFINITY;
  return {
    name: 'olmconfig',
    for: Kinds.olmConfig,
    watches: [
      { ...Kinds.clusterServiceVersion, map: (csv, cache) => (concernsAllNamespacesCopies(cache, csv) ? [clusterConfig] : []) },
      { ...Kinds.operatorGroup, map: () => [clusterConfig] },
      { ...Kinds.namespace, map: () => [clusterConfig] },
    ],
    // As upstream, the OLMConfig `cluster` exists from start-up on: whoever wants copies off edits it.
    startRequests: [clusterConfig],
    async reconcile(request, context) {
      if (request.name !== OLMConfigName) return;
      const config = clusterOlmConfig(context.cache);
      if (!config) return createClusterConfig(shared);
      // With copies off altogether (`copiedCsvs: false`) there is nothing to report on.
      if (!shared.copiedCsvsEnabled) return;
      const wait = lastCheckAt + conditionCheckIntervalMs - performance.now();
      if (wait > 0) return { requeueAfter: Math.ceil(wait) };
      lastCheckAt = performance.now();
      const enabled = copiedCsvsEnabled(config);
      const condition = copiedCsvsCondition(enabled, await allNamespacesCopiesAsExpected(shared, enabled, context));
      if (!updatedConditions(config.status?.conditions ?? [], condition, '')) return;
      await updateStatus<OLMConfig & CachedObject>(shared.client(), { ...Kinds.olmConfig, name: OLMConfigName }, (live) => {
        const conditions = updatedConditions(live.status?.conditions ?? [], condition, formatTime(shared.now()));
        if (!conditions) return false;
        live.status = { ...(live.status ?? {}), conditions };
      });
    },
  };
}

/** Creates the OLMConfig `cluster` (empty spec: upstream's defaults); one created meanwhile is kept. */
async function createClusterConfig(shared: OlmConfigDependencies): Promise<void> {
  try {
    await shared.client().create({ ...Kinds.olmConfig, metadata: { name: OLMConfigName }, spec: {} }, { fieldManager });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** A copy, or a CSV in the namespace of an AllNamespaces group (its source or a would-be source). */
function concernsAllNamespacesCopies(cache: ObjectReader, csv: CachedObject): boolean {
  const namespace = csv.metadata?.labels?.[Labels.copiedFrom] ?? csv.metadata?.namespace ?? '';
  return (cache.list(Kinds.operatorGroup, { namespace })).some((og) => targetsAllNamespaces(og));
}

function targetsAllNamespaces(og: Og): boolean {
  const targets = og.status?.namespaces;
  return targets?.length === 1 && targets[0] === '';
}

/**
 * Whether every non-copied CSV in the namespace of an AllNamespaces group has its copies exactly where
 * they belong: every other namespace while copies are enabled, only the protected ones otherwise. A copy
 * per namespace and name, so a CSV's copies are where expected when all are in expected namespaces and
 * there are as many as expected. In slices: tens of thousands of copies must not block the event loop.
 */
async function allNamespacesCopiesAsExpected(shared: OlmConfigDependencies, enabled: boolean, context: ReconcileContext): Promise<boolean> {
  // Disabled: only the protected namespaces matter, so the cost does not grow with the namespaces.
  const namespaces = enabled ? namespaceViews(context.cache) : namespaceViewsOf(context.cache, shared.protectedCopiedCsvNamespaces);
  for (const og of context.cache.list(Kinds.operatorGroup)) {
    if (!targetsAllNamespaces(og)) continue;
    const namespace = og.metadata.namespace;
    const expected = new Set(allNamespacesCopyTargets(namespace, namespaces, enabled, shared.protectedCopiedCsvNamespaces));
    const copiesByName = new Map<string, number>();
    for (const copy of context.cache.list(Kinds.clusterServiceVersion, { labelSelector: `${Labels.copiedFrom}=${namespace}` })) {
      if (!expected.has(copy.metadata?.namespace ?? '')) return false;
      const name = copy.metadata?.name ?? '';
      copiesByName.set(name, (copiesByName.get(name) ?? 0) + 1);
      await yieldToEventLoop();
    }
    for (const csv of context.cache.list(Kinds.clusterServiceVersion, { namespace })) {
      if (!isCopied(csv) && (copiesByName.get(csv.metadata?.name ?? '') ?? 0) !== expected.size) return false;
    }
  }
  return true;
}
