import { ProjectAnnotations } from '@olm/api';
import { describeError, hasErrorCode, type NamespaceResolution, type ReconcileResult, type ResolverCatalog, type ResolverSubscription } from '@olm/core';
import { bundleUnpackSettings, type BundleUnpackSettings } from '../bundles/bundle-unpack-settings.js';
import { specInvalidReason } from '../catalog-sources/catalog-source-spec.js';
import { catalogSourceRevision } from '../catalog-sources/catalog-source-connections.js';
import type { ResolutionDeps } from './resolution-deps.js';
import { installedOperators, replacementInProgress } from './installed-operators.js';
import { asString, nameOf, type CatalogSourceObject } from '../kinds.js';
import type { NamespaceSnapshot, LiveSubscription } from './namespace-snapshot.js';
import { failResolution } from './resolution-outcomes.js';
import type { Working } from '../subscriptions/subscription-writes.js';

export interface ResolvedNamespace {
  readonly resolution: NamespaceResolution;
  readonly catalogs: ResolverCatalog[];
  readonly unpack: BundleUnpackSettings;
}

/** Resolved, or what the pass returns instead (a wait, a reported failure). */
export type ResolveOutcome = { readonly resolved: ResolvedNamespace } | { readonly done: ReconcileResult | void };

type ResolveContext = Pick<
  ResolutionDeps,
  'client' | 'fieldManager' | 'events' | 'bundleUnpackPollMs' | 'connections' | 'logger' | 'metrics' | 'reconciledCatalogSources' | 'resolver' | 'sourceTypes' | 'unhealthyRetryMs'
>;

/**
 * Resolves the namespace through the `namespaceResolver` point, once every visible catalog has been looked at
 * by this process (just created, or just after a restart): resolving without one could take a dependency from
 * a catalog it would have beaten. That wait is not a failure, so no condition; its status write brings the
 * namespace back. On failure the Subscriptions get `ResolutionFailed`.
 */
export async function resolveNamespace(context: ResolveContext, snapshot: NamespaceSnapshot, working: Working[], signal: AbortSignal, now: Date): Promise<ResolveOutcome> {
  const { namespace, sources, operatorGroups, subscriptions, csvs, failForward, failureScope } = snapshot;
  const unseen = sources.filter(
    (source) =>
      !context.reconciledCatalogSources.wasReconciled({ namespace: source.metadata?.namespace ?? '', name: nameOf(source) }) &&
      !specInvalidReason({ ...source.spec }, context.sourceTypes()),
  );
  if (unseen.length > 0) {
    context.logger.debug('waiting for catalog sources to be reconciled before resolving', { namespace, catalogSources: unseen.map((source) => `${source.metadata?.namespace}/${nameOf(source)}`) });
    return { done: { requeueAfter: context.unhealthyRetryMs } };
  }
  const started = performance.now();
  try {
    if (operatorGroups.length !== 1) throw new Error(`expected 1 OperatorGroup in the namespace, found ${operatorGroups.length}`);
    const unpack = bundleUnpackSettings(operatorGroups[0]);
    const catalogs = await loadCatalogs(context, sources, subscriptions);
    // In slices: a costly resolution gives the event loop (other namespaces, an in-process API server) a turn every few ms.
    const resolution = await context.resolver().resolveInSlices(
      { namespace, failForward, failureScope, catalogs, installed: installedOperators(namespace, csvs), subscriptions: subscriptions.map(resolverSubscription) },
      { signal },
    );
    context.metrics?.resolutionDuration.observe({ outcome: 'succeeded' }, (performance.now() - started) / 1000);
    return { resolved: { resolution, catalogs, unpack } };
  } catch (error) {
    // Stopping (shutdown, lost leadership) is not a failure of the namespace: the next leader resolves it.
    if (signal.aborted) throw error;
    context.metrics?.resolutionDuration.observe({ outcome: 'failed' }, (performance.now() - started) / 1000);
    // Not a failure to report: the replaced CSV's deletion brings the namespace back.
    const upgrade = hasErrorCode(error, 'OLM_RESOLVER_UNSATISFIABLE') ? replacementInProgress(csvs) : undefined;
    if (upgrade) {
      context.logger.debug('resolution waits for an upgrade in progress', { namespace, upgrade, error: describeError(error) });
      return { done: undefined };
    }
    return { done: await failResolution(context, working, error, now) };
  }
}

/**
 * The content of each visible catalog. A catalog that cannot be read fails resolution when a
 * Subscription of this namespace targets it; otherwise it is left out, so one broken catalog does
 * not stop unrelated namespaces.
 */
async function loadCatalogs(
  context: Pick<ResolutionDeps, 'connections' | 'logger' | 'sourceTypes'>,
  sources: readonly CatalogSourceObject[],
  subscriptions: readonly LiveSubscription[],
): Promise<ResolverCatalog[]> {
  const catalogs: ResolverCatalog[] = [];
  for (const source of sources) {
    const key = { namespace: source.metadata?.namespace ?? '', name: nameOf(source) };
    if (specInvalidReason({ ...source.spec }, context.sourceTypes())) continue;
    const targeted = subscriptions.some((sub) => sub.spec?.source === key.name && sub.spec?.sourceNamespace === key.namespace);
    try {
      const content = await context.connections.content(key, catalogSourceRevision(source));
      catalogs.push({ ...key, priority: Number(source.spec?.priority ?? 0), content });
    } catch (error) {
      if (targeted) throw new Error(`error using catalogsource ${key.namespace}/${key.name}: ${describeError(error)}`);
      context.logger.warn('catalog left out of resolution', { catalogSource: `${key.namespace}/${key.name}`, error: describeError(error) });
    }
  }
  return catalogs;
}

function resolverSubscription(sub: LiveSubscription): ResolverSubscription {
  const pin = sub.metadata?.annotations?.[ProjectAnnotations.versionPin]?.trim() || undefined;
  return {
    name: nameOf(sub),
    package: asString(sub.spec?.name),
    channel: asString(sub.spec?.channel),
    source: asString(sub.spec?.source),
    sourceNamespace: asString(sub.spec?.sourceNamespace),
    ...(sub.spec?.startingCSV ? { startingCSV: sub.spec.startingCSV } : {}),
    ...(sub.status?.installedCSV ? { installedCSV: sub.status.installedCSV } : {}),
    ...(pin !== undefined ? { versionRange: pin } : {}),
  };
}
