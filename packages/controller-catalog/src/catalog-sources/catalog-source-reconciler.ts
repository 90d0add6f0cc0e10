import { GrpcConnectionStates } from '@olm/api';
import type { ObjectReader, Reconciler } from '@olm/core';
import { connectAndProbe, rejectInvalidSpec, serveWorkload, startPass, writeStatus } from './catalog-source-steps.js';
import type { CatalogSourceDeps } from './catalog-source-deps.js';
import { Kinds } from '../kinds.js';

/**
 * CatalogSource, as named steps: validate the spec (its source type's check) → serve it through the
 * type's workload (e.g. the registry Pod and Service of an image, the ConfigMap of a ConfigMap catalog) →
 * connect and probe → status. Every source type, built-in or not, is reached through the
 * `catalogSourceTypes` point only. An unreachable catalog is a status, never an error of the reconciler.
 */
export function createCatalogSourceReconciler(context: CatalogSourceDeps): Reconciler {
  return {
    name: 'catalogsource',
    for: Kinds.catalogSource,
    // A registry connection that changes state is probed and its status written at once (upstream's syncSourceState).
    eventSources: [context.catalogEvents.connectionChanged.eventSource((key) => [key])],
    async reconcile({ namespace = '', name }, { cache }) {
      const key = { namespace, name };
      const source = cache.get(Kinds.catalogSource, name, namespace);
      if (!source) return forgetCatalogSource(context, cache, key);
      context.metrics?.catalogSourceCount.set(cache.list(Kinds.catalogSource).length);
      // Upstream shows every catalog's snapshot counter, at 0 before its first snapshot.
      context.metrics?.catalogSourceSnapshots.inc(key, 0);
      const pass = startPass(context, key, source, context.now());
      if (await rejectInvalidSpec(context, pass)) return;
      const served = await serveWorkload(context, pass);
      if (!served) return { requeueAfter: context.unhealthyRetryMs };
      const state = await connectAndProbe(context, pass, served);
      await writeStatus(context, source, pass.next);
      context.metrics?.catalogSourceReady.set(key, state === GrpcConnectionStates.Ready ? 1 : 0);
      const recheck = state === GrpcConnectionStates.Ready ? context.healthCheckIntervalMs : context.unhealthyRetryMs;
      return { requeueAfter: served.recheckAfterMs !== undefined ? Math.min(recheck, served.recheckAfterMs) : recheck };
    },
  };
}

/** A deleted CatalogSource: its connection closed, its metrics series gone. */
async function forgetCatalogSource(context: CatalogSourceDeps, cache: ObjectReader, key: { namespace: string; name: string }): Promise<void> {
  await context.connections.remove(key);
  for (const type of context.sourceTypes().values()) type.workload?.forget?.(key);
  context.reconciledCatalogSources.forget(key);
  context.metrics?.catalogSourceReady.remove(key);
  context.metrics?.catalogSourceSnapshots.remove(key);
  context.metrics?.catalogSourceCount.set(cache.list(Kinds.catalogSource).length);
}
