import { GrpcConnectionStates } from '@olm/api';
import type { ObjectReader, Reconciler } from '@olm/core';
import { connectAndProbe, ensureRegistry, locateRegistry, pollRegistry, rejectInvalidSpec, startPass, writeStatus } from './catalog-source-steps.js';
import type { CatalogControllerContext } from './controller-context.js';
import { Kinds } from './kinds.js';

/**
 * CatalogSource, as named steps: validate the spec → locate the registry (address, registry Service for an
 * image, ConfigMap) → registry poll → ensure the registry Pod and Service → connect and probe → status.
 * An unreachable catalog is a status, never an error of the reconciler.
 */
export function createCatalogSourceReconciler(context: CatalogControllerContext): Reconciler {
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
      const pass = startPass(key, source, context.now());
      if (await rejectInvalidSpec(context, pass)) return;
      const connectSpec = await locateRegistry(context, pass);
      if (!connectSpec) return { requeueAfter: context.unhealthyRetryMs };
      const poll = pollRegistry(context, pass);
      await ensureRegistry(context, pass, poll.due);
      const state = await connectAndProbe(context, pass, connectSpec);
      await writeStatus(context, source, pass.next);
      context.metrics?.catalogSourceReady.set(key, state === GrpcConnectionStates.Ready ? 1 : 0);
      const recheck = state === GrpcConnectionStates.Ready ? context.healthCheckIntervalMs : context.unhealthyRetryMs;
      return { requeueAfter: poll.intervalMs !== undefined ? Math.min(recheck, poll.intervalMs) : recheck };
    },
  };
}

/** A deleted CatalogSource: its connection closed, its metrics series gone. */
async function forgetCatalogSource(context: CatalogControllerContext, cache: ObjectReader, key: { namespace: string; name: string }): Promise<void> {
  await context.connections.remove(key);
  context.catalogImages.forget(key);
  context.reconciledCatalogSources.delete(`${key.namespace}/${key.name}`);
  context.metrics?.catalogSourceReady.remove(key);
  context.metrics?.catalogSourceSnapshots.remove(key);
  context.metrics?.catalogSourceCount.set(cache.list(Kinds.catalogSource).length);
}
