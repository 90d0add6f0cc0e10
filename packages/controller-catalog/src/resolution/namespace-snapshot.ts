import type { KubeClient, ObjectReader } from '@olm/core';
import type { ResolutionDeps } from './resolution-deps.js';
import { installPlansToCollect } from '../install-plans/install-plan-rules.js';
import { OLMConfigName, type Subscription } from '@olm/api';
import type { CachedObject } from '@olm/core';
import { Kinds, nameOf, type CatalogSourceObject, type CsvObject, type InstallPlanObject, type OperatorGroupObject } from '../kinds.js';
import type { SubscriptionStatus } from '../subscriptions/subscription-status.js';

const excludeGlobalAnnotation = 'olm.operatorframework.io/exclude-global-namespace-resolution';

/** A Subscription as the namespace pass and the subscription reconciler read and write it (@olm/api's, its status as `subscription-status` computes it). */
export type LiveSubscription = CachedObject & Omit<Subscription, 'status'> & { status?: SubscriptionStatus };

/** What one namespace pass reads: live Subscriptions, OperatorGroups and InstallPlans, cached CSVs and CatalogSources. */
export interface NamespaceSnapshot {
  readonly namespace: string;
  /** The InstallPlans left after collecting old ones. */
  readonly plans: readonly InstallPlanObject[];
  readonly subscriptions: readonly LiveSubscription[];
  readonly csvs: readonly CsvObject[];
  readonly operatorGroups: readonly OperatorGroupObject[];
  /** The OperatorGroup (when exactly one) opts into fail-forward upgrades. */
  readonly failForward: boolean;
  /** OLMConfig `spec.features.resolutionFailureScope`: `Subscription` unless it says `Namespace` (upstream's). */
  readonly failureScope: 'subscription' | 'namespace';
  /** The CatalogSources resolution sees: the namespace's and, unless the OperatorGroup excludes them, the global ones. */
  readonly sources: readonly CatalogSourceObject[];
  /** The CatalogSources whose health the Subscriptions report: always the namespace's and the global ones (as upstream). */
  readonly healthSources: readonly CatalogSourceObject[];
}

type SnapshotContext = Pick<ResolutionDeps, 'globalCatalogNamespace'>;

/** Deletes the InstallPlans beyond the newest 5 (upstream's garbage collection) and returns the others. */
export async function collectInstallPlans(client: KubeClient, namespace: string): Promise<InstallPlanObject[]> {
  const plans = (await client.list<InstallPlanObject>(Kinds.installPlan, { namespace })).items;
  const collect = installPlansToCollect(
    plans.map((plan) => ({
      name: nameOf(plan),
      generation: plan.spec?.generation ?? 0,
      creationTimestamp: plan.metadata?.creationTimestamp ?? '',
    })),
  );
  for (const plan of collect) {
    await client.delete({ ...Kinds.installPlan, namespace, name: plan.name }).catch(() => undefined);
  }
  const collected = new Set(collect.map((plan) => plan.name));
  return plans.filter((plan) => !collected.has(nameOf(plan)));
}

/** The namespace's objects, read live (the pass writes them) but the CSVs (cached), or undefined when it holds no Subscription. */
export async function readNamespace(
  context: SnapshotContext,
  client: KubeClient,
  cache: ObjectReader,
  namespace: string,
  plans: readonly InstallPlanObject[],
): Promise<NamespaceSnapshot | undefined> {
  const subscriptions = (await client.list<LiveSubscription>(Kinds.subscription, { namespace })).items;
  if (subscriptions.length === 0) return undefined;
  // From the cache (a copy there is its metadata): the pass writes no CSV, and a namespace holding copies of
  // every AllNamespaces operator would otherwise be listed whole, bodies and all, on every pass.
  const csvs = cache.list(Kinds.clusterServiceVersion, { namespace });
  const operatorGroups = (await client.list<OperatorGroupObject>(Kinds.operatorGroup, { namespace })).items;
  const catalogsIn = (namespaces: readonly string[]) => namespaces.flatMap((catalogNamespace) => cache.list(Kinds.catalogSource, { namespace: catalogNamespace }));
  const global = context.globalCatalogNamespace;
  return {
    namespace,
    plans,
    subscriptions,
    csvs,
    operatorGroups,
    failForward: operatorGroups.length === 1 && isUnsafeFailForward(operatorGroups[0]!),
    failureScope: resolutionFailureScope(cache),
    sources: catalogsIn(visibleCatalogNamespaces(context, namespace, operatorGroups)),
    healthSources: catalogsIn(namespace === global ? [namespace] : [namespace, global]),
  };
}

function resolutionFailureScope(cache: ObjectReader): 'subscription' | 'namespace' {
  const config = cache.get(Kinds.olmConfig, OLMConfigName);
  return config?.spec?.features?.resolutionFailureScope === 'Namespace' ? 'namespace' : 'subscription';
}

function visibleCatalogNamespaces(context: SnapshotContext, namespace: string, operatorGroups: readonly OperatorGroupObject[]): string[] {
  const excluded = operatorGroups.length === 1 && operatorGroups[0]!.metadata?.annotations?.[excludeGlobalAnnotation] === 'true';
  return excluded || namespace === context.globalCatalogNamespace ? [namespace] : [namespace, context.globalCatalogNamespace];
}

/**
 * Whether an OperatorGroup opts into fail-forward upgrades. Current OLM writes `spec.upgradeStrategy` as a
 * string (`TechPreviewUnsafeFailForward`); older releases wrote `{ name: UnsafeFailForward }`. Both are honoured.
 */
export function isUnsafeFailForward(group: { readonly spec?: { readonly upgradeStrategy?: unknown } }): boolean {
  const strategy = group.spec?.upgradeStrategy;
  if (typeof strategy === 'string') return strategy === 'TechPreviewUnsafeFailForward';
  const name = typeof strategy === 'object' && strategy !== null && 'name' in strategy ? strategy.name : undefined;
  return name === 'TechPreviewUnsafeFailForward' || name === 'UnsafeFailForward';
}
