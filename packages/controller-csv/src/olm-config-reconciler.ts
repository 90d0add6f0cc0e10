import type { OLMConfig } from '@olm/api';
import { Labels, OLMConfigName, updatedConditions, isCopied } from '@olm/api';
import type { CachedObject, ObjectReader, ReconcileContext, ReconcileRequest, Reconciler } from '@olm/core';
import { isAlreadyExists, updateStatus } from '@olm/controller-runtime';
import { formatTime } from '@olm/go-format';
import { allNamespacesCopyTargets, copiedCsvsCondition, copiedCsvsEnabled, copiesAsExpected } from './copied-csvs-config.js';
import { fieldManager, Kinds } from './kinds.js';
import { clusterOlmConfig, namespaceViews, namespaceViewsOf, type Og, type Shared } from './shared.js';

const clusterConfig: ReconcileRequest = { name: OLMConfigName };

/**
 * The OLMConfig reconciler (upstream `syncOLMConfig`): the `DisabledCopiedCSVs` condition of the OLMConfig
 * `cluster`, telling whether the copies of every AllNamespaces operator are where the config wants them.
 * The CSV reconciler makes and deletes the copies; this one reports on them, so it looks again whenever a
 * copy, an AllNamespaces operator, a group or a namespace changes.
 */
export function createOlmConfigReconciler(shared: Shared): Reconciler {
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
      const enabled = copiedCsvsEnabled(config);
      const condition = copiedCsvsCondition(enabled, allNamespacesCopiesAsExpected(shared, enabled, context));
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
async function createClusterConfig(shared: Shared): Promise<void> {
  try {
    await shared.client().create({ ...Kinds.olmConfig, metadata: { name: OLMConfigName }, spec: {} }, { fieldManager });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** A copy, or a CSV in the namespace of an AllNamespaces group (its source or a would-be source). */
function concernsAllNamespacesCopies(cache: ObjectReader, csv: CachedObject): boolean {
  const namespace = csv.metadata?.labels?.[Labels.copiedFrom] ?? csv.metadata?.namespace ?? '';
  return (cache.list(Kinds.operatorGroup, { namespace }) as Og[]).some((og) => targetsAllNamespaces(og));
}

function targetsAllNamespaces(og: Og): boolean {
  const targets = og.status?.namespaces;
  return targets?.length === 1 && targets[0] === '';
}

/**
 * Whether every non-copied CSV in the namespace of an AllNamespaces group has its copies exactly where
 * they belong: every other namespace while copies are enabled, only the protected ones otherwise.
 */
function allNamespacesCopiesAsExpected(shared: Shared, enabled: boolean, context: ReconcileContext): boolean {
  // Disabled: only the protected namespaces matter, so the cost does not grow with the namespaces.
  const namespaces = enabled ? namespaceViews(context.cache) : namespaceViewsOf(context.cache, shared.protectedCopiedCsvNamespaces);
  for (const og of context.cache.list(Kinds.operatorGroup) as Og[]) {
    if (!targetsAllNamespaces(og)) continue;
    const namespace = og.metadata.namespace;
    const copies = new Map<string, Set<string>>();
    for (const copy of context.cache.list(Kinds.clusterServiceVersion, { labelSelector: `${Labels.copiedFrom}=${namespace}` })) {
      const name = copy.metadata?.name ?? '';
      copies.set(name, (copies.get(name) ?? new Set()).add(copy.metadata?.namespace ?? ''));
    }
    const expected = allNamespacesCopyTargets(namespace, namespaces, enabled, shared.protectedCopiedCsvNamespaces);
    for (const csv of context.cache.list(Kinds.clusterServiceVersion, { namespace })) {
      if (isCopied(csv)) continue;
      if (!copiesAsExpected(copies.get(csv.metadata?.name ?? '') ?? new Set(), expected)) return false;
    }
  }
  return true;
}
