import { describeError, hasErrorCode, type CachedObject, type ObjectReader, type Reconciler } from '@olm/core';
import { isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import type { Resolution, ResolverCatalog, ResolverSubscription } from '@olm/resolver';
import { bundleUnpackSettings, type BundleUnpackSettings } from './bundle-unpack-settings.js';
import { specInvalidReason } from './catalog-source-spec.js';
import { catalogSourceRevision } from './catalog-source-connections.js';
import type { CatalogControllerContext } from './controller-context.js';
import { deprecationConditions } from './deprecation-conditions.js';
import { ensureInstallPlan, referenceOf } from './install-plan-creation.js';
import { installedOperators, replacementInProgress } from './installed-operators.js';
import { installPlansToCollect, orderSteps } from './install-plan-rules.js';
import { asString, Kinds, nameOf, type AnyObject } from './kinds.js';
import {
  removeConditions,
  setCondition,
  updateCatalogHealth,
  updateCsvState,
  updateInstallPlanConditions,
  type CatalogHealth,
  type InstallPlanStatusView,
  type SubscriptionStatus,
} from './subscription-status.js';
import { resolveSteps, type StepResolution, type Unfinished } from './step-resolution.js';
import { formatTime } from '@olm/go-format';

const generatedByAnnotation = 'olm.generated-by';
const excludeGlobalAnnotation = 'olm.operatorframework.io/exclude-global-namespace-resolution';

interface SubscriptionObject extends AnyObject {
  spec?: {
    name?: string;
    channel?: string;
    source?: string;
    sourceNamespace?: string;
    startingCSV?: string;
    installPlanApproval?: string;
    [field: string]: unknown;
  };
  status?: SubscriptionStatus & Record<string, unknown>;
}

/** A Subscription being synced: the object as read and the status it should get. */
interface Working {
  readonly object: SubscriptionObject;
  status: SubscriptionStatus;
}

/**
 * Namespace resolution (upstream's `syncResolvingNamespace`), one namespace per request:
 * collect old InstallPlans, refresh each Subscription's InstallPlan/CSV/catalog state, resolve the
 * namespace, and when some Subscription's `currentCSV` changes write an InstallPlan with the steps
 * of every new or upgraded bundle.
 */
export function createNamespaceResolutionReconciler(context: CatalogControllerContext): Reconciler {
  const toNamespace = (object: CachedObject) => (object.metadata?.namespace ? [{ name: object.metadata.namespace }] : []);
  // A global catalog serves every namespace with Subscriptions; another one its own namespace.
  const servedBy = (catalogNamespace: string) =>
    catalogNamespace === context.globalCatalogNamespace ? [...context.subscriptionNamespaces].map((name) => ({ name })) : [{ name: catalogNamespace }];
  return {
    name: 'namespace-resolution',
    for: Kinds.namespace,
    // Namespaces are independent (one key never runs twice at once); upstream runs two workers too.
    maxConcurrentReconciles: 2,
    watches: [
      {
        ...Kinds.subscription,
        map: (object) => {
          if (object.metadata?.namespace) context.subscriptionNamespaces.add(object.metadata.namespace);
          return toNamespace(object);
        },
      },
      { ...Kinds.catalogSource, map: (object) => (object.metadata?.namespace ? servedBy(object.metadata.namespace) : []) },
      { ...Kinds.operatorGroup, map: toNamespace },
      { ...Kinds.clusterServiceVersion, map: toNamespace },
      { ...Kinds.installPlan, map: toNamespace },
    ],
    // A catalog whose registry may serve other content now (restarted, republished): resolve again, as upstream
    // requeues the namespaces subscribed to a catalog whose connection becomes READY.
    eventSources: [context.catalogEvents.contentChanged.eventSource((key) => servedBy(key.namespace))],
    async reconcile({ name: namespace }, { cache, signal }) {
      context.metrics?.subscriptionCount.set(cache.list(Kinds.subscription).length);
      context.metrics?.installPlanCount.set(cache.list(Kinds.installPlan).length);
      const present = cache.list(Kinds.subscription, { namespace });
      context.metrics?.subscriptionSyncs.forgetMissing(namespace, new Set(present.map(nameOf)));
      // Kept to the namespaces that hold Subscriptions now, so deleted namespaces do not pile up.
      if (present.length === 0) {
        context.subscriptionNamespaces.delete(namespace);
        return;
      }
      context.subscriptionNamespaces.add(namespace);
      return syncNamespace(context, cache, namespace, signal);
    },
  };
}

async function syncNamespace(context: CatalogControllerContext, cache: ObjectReader, namespace: string, signal: AbortSignal) {
  const client = context.client();
  const now = context.now();

  // 1. collect old InstallPlans
  let plans = (await client.list<AnyObject>(Kinds.installPlan, { namespace })).items;
  const collect = installPlansToCollect(
    plans.map((plan) => ({
      name: nameOf(plan),
      generation: Number((plan.spec as { generation?: number } | undefined)?.generation ?? 0),
      creationTimestamp: asString(plan.metadata?.creationTimestamp),
    })),
  );
  for (const plan of collect) {
    await client.delete({ ...Kinds.installPlan, namespace, name: plan.name }).catch(() => undefined);
  }
  const collected = new Set(collect.map((plan) => plan.name));
  plans = plans.filter((plan) => !collected.has(nameOf(plan)));

  const subscriptions = (await client.list<SubscriptionObject>(Kinds.subscription, { namespace })).items;
  if (subscriptions.length === 0) return;
  const csvs = (await client.list<AnyObject>(Kinds.clusterServiceVersion, { namespace })).items;
  const operatorGroups = (await client.list<AnyObject>(Kinds.operatorGroup, { namespace })).items;
  const failForward = operatorGroups.length === 1 && isUnsafeFailForward(operatorGroups[0]!);
  const catalogsIn = (namespaces: readonly string[]) => namespaces.flatMap((catalogNamespace) => cache.list(Kinds.catalogSource, { namespace: catalogNamespace }) as AnyObject[]);
  // Resolution sees the global catalogs unless the OperatorGroup excludes them; health always lists them (as upstream).
  const sources = catalogsIn(visibleCatalogNamespaces(context, namespace, operatorGroups));
  const healthSources = catalogsIn(namespace === context.globalCatalogNamespace ? [namespace] : [namespace, context.globalCatalogNamespace]);

  // 2. refresh every Subscription's state from its InstallPlan, its CSV and the catalogs' health
  const health = catalogHealth(healthSources, now);
  await refreshTargetedContent(context, healthSources, subscriptions);
  const working: Working[] = subscriptions.map((object) => ({ object, status: object.status ?? {} }));
  let stateChanged = false;
  for (const sub of working) {
    const before = sub.status;
    sub.status = adoptGeneratingInstallPlan(sub.object, sub.status, plans, now);
    const ref = sub.status.installPlanRef;
    let plan: AnyObject | undefined;
    if (ref) {
      plan = plans.find((candidate) => nameOf(candidate) === ref.name);
      sub.status = updateInstallPlanConditions(sub.status, plan?.status as InstallPlanStatusView | undefined, now).status;
    }
    const currentCsvExists = csvs.some((csv) => nameOf(csv) === sub.status.currentCSV);
    sub.status = updateCsvState(sub.status, currentCsvExists, now, {
      failForward,
      installPlanFailed: (plan?.status as { phase?: string } | undefined)?.phase === 'Failed',
    }).status;
    if (before.state !== sub.status.state || before.installPlanRef?.name !== sub.status.installPlanRef?.name || before.currentCSV !== sub.status.currentCSV) {
      stateChanged = true;
    }
    sub.status = updateCatalogHealth({ spec: { source: asString(sub.object.spec?.source), sourceNamespace: asString(sub.object.spec?.sourceNamespace) }, status: sub.status }, health, now).status;
    sub.status = deprecationConditions(sub.object, sub.status, healthSources, context, now);
    context.metrics?.subscriptionSyncs.record(namespace, {
      name: nameOf(sub.object),
      installed: asString(sub.status.installedCSV),
      channel: asString(sub.object.spec?.channel),
      package: asString(sub.object.spec?.name),
      approval: asString(sub.object.spec?.installPlanApproval),
    });
  }
  await writeSubscriptions(context, working);
  // A changed state is acted on by the next pass, which the status write itself triggers.
  if (stateChanged) return;
  if (working.every((sub) => sub.status.installPlanRef && sub.status.state === 'UpgradePending')) return;

  // 3. resolve, once every visible catalog has been looked at by this process (just created, or just
  // after a restart): resolving without one could take a dependency from a catalog it would have beaten.
  // Not a failure, so no condition; its status write brings the namespace back.
  const unseen = sources.filter(
    (source) =>
      !context.reconciledCatalogSources.has(`${source.metadata?.namespace ?? ''}/${nameOf(source)}`) &&
      !specInvalidReason((source.spec ?? {}) as Record<string, unknown>, context.sourceTypes().keys()),
  );
  if (unseen.length > 0) {
    context.logger.debug('waiting for catalog sources to be reconciled before resolving', { namespace, catalogSources: unseen.map((source) => `${source.metadata?.namespace}/${nameOf(source)}`) });
    return { requeueAfter: context.unhealthyRetryMs };
  }
  let resolution: Resolution;
  let catalogs: ResolverCatalog[];
  let unpack: BundleUnpackSettings;
  const started = performance.now();
  try {
    if (operatorGroups.length !== 1) throw new Error(`expected 1 OperatorGroup in the namespace, found ${operatorGroups.length}`);
    unpack = bundleUnpackSettings(operatorGroups[0]);
    catalogs = await loadCatalogs(context, sources, subscriptions);
    // In slices: a costly resolution gives the event loop (other namespaces, an in-process API server) a turn every few ms.
    resolution = await context.resolver().resolveInSlices(
      {
        namespace,
        failForward,
        catalogs,
        installed: installedOperators(namespace, csvs),
        subscriptions: subscriptions.map(resolverSubscription),
      },
      { signal },
    );
    context.metrics?.resolutionDuration.observe({ outcome: 'succeeded' }, (performance.now() - started) / 1000);
  } catch (error) {
    // Stopping (shutdown, lost leadership) is not a failure of the namespace: the next leader resolves it.
    if (signal.aborted) throw error;
    context.metrics?.resolutionDuration.observe({ outcome: 'failed' }, (performance.now() - started) / 1000);
    // Not a failure to report: the replaced CSV's deletion brings the namespace back.
    const upgrade = hasErrorCode(error, 'OLM_RESOLVER_UNSATISFIABLE') ? replacementInProgress(csvs) : undefined;
    if (upgrade) {
      context.logger.debug('resolution waits for an upgrade in progress', { namespace, upgrade, error: describeError(error) });
      return;
    }
    return failResolution(context, working, error, now);
  }

  // 4. steps for every new or changed operator (image-only bundles once their image is unpacked)
  let resolved: StepResolution;
  try {
    resolved = await resolveSteps(context, { namespace, resolution, catalogs, subscriptions, csvs, sources, unpack });
  } catch (error) {
    return failResolution(context, working, error, now);
  }
  const { steps, updated, unpacking, bundleLookups } = resolved;
  // No InstallPlan until every bundle of it is unpacked (as upstream since it unpacks during resolution);
  // the conditions say what is being waited on.
  if (unpacking.length > 0) return reportUnpacking(context, working, unpacking, now);

  // 5. an InstallPlan when some Subscription's currentCSV changes
  if (updated.size > 0 && steps.length > 0) {
    let created: Awaited<ReturnType<typeof ensureInstallPlan>>;
    try {
      created = await ensureInstallPlan(context, namespace, subscriptions, plans, orderSteps(steps), bundleLookups);
    } catch (error) {
      // upstream reports this under BundleUnpackFailed, with its own reason, and retries
      const message = `error ensuring InstallPlan: ${describeError(error)}`;
      for (const sub of working) {
        sub.status = setCondition(sub.status, { type: 'BundleUnpackFailed', status: 'True', reason: 'EnsureInstallPlanFailed', message }, now).status;
      }
      await writeSubscriptions(context, working);
      throw error;
    }
    const { reference, generation } = created;
    for (const sub of working) {
      const currentCSV = updated.get(nameOf(sub.object));
      if (currentCSV === undefined) continue;
      sub.status = {
        ...sub.status,
        currentCSV,
        installPlanRef: reference,
        installplan: { apiVersion: reference.apiVersion, kind: reference.kind, name: reference.name, uuid: reference.uid },
        installPlanGeneration: generation,
        state: 'UpgradePending',
        lastUpdated: formatTime(now),
      };
    }
  }
  for (const sub of working) {
    sub.status = removeConditions(sub.status, ['ResolutionFailed', 'BundleUnpacking', 'BundleUnpackFailed'], now).status;
  }
  await writeSubscriptions(context, working);
}

function visibleCatalogNamespaces(context: CatalogControllerContext, namespace: string, operatorGroups: readonly AnyObject[]): string[] {
  const excluded = operatorGroups.length === 1 && operatorGroups[0]!.metadata?.annotations?.[excludeGlobalAnnotation] === 'true';
  return excluded || namespace === context.globalCatalogNamespace ? [namespace] : [namespace, context.globalCatalogNamespace];
}

/**
 * Brings the content of the catalogs the Subscriptions target up to date (within the TTL, or after
 * the CatalogSource changed), so deprecation conditions read what resolution will. A catalog that
 * cannot be read now is left as it is: its health and resolution say so.
 */
async function refreshTargetedContent(context: CatalogControllerContext, sources: readonly AnyObject[], subscriptions: readonly SubscriptionObject[]): Promise<void> {
  for (const source of sources) {
    const key = { namespace: source.metadata?.namespace ?? '', name: nameOf(source) };
    if (!subscriptions.some((sub) => sub.spec?.source === key.name && sub.spec?.sourceNamespace === key.namespace)) continue;
    if (!context.connections.isConnected(key)) continue;
    await context.connections.content(key, catalogSourceRevision(source)).catch(() => undefined);
  }
}

/** Health of every catalog the namespace sees, sorted by namespace and name (as upstream lists them). */
function catalogHealth(sources: readonly AnyObject[], now: Date): CatalogHealth[] {
  return [...sources]
    .sort((a, b) => `${a.metadata?.namespace}/${nameOf(a)}`.localeCompare(`${b.metadata?.namespace}/${nameOf(b)}`))
    .map((source) => {
      const status = (source.status ?? {}) as { reason?: string; connectionState?: { lastObservedState?: string } };
      return {
        catalogSourceRef: {
          apiVersion: Kinds.catalogSource.apiVersion,
          kind: Kinds.catalogSource.kind,
          name: nameOf(source),
          namespace: source.metadata?.namespace ?? '',
          uid: source.metadata?.uid,
        },
        lastUpdated: formatTime(now),
        healthy: status.reason !== 'SpecInvalidError' && status.connectionState?.lastObservedState === 'READY',
      };
    });
}

/** A Subscription an InstallPlan created (annotation `olm.generated-by`) takes that plan as its own. */
function adoptGeneratingInstallPlan(sub: SubscriptionObject, status: SubscriptionStatus, plans: readonly AnyObject[], now: Date): SubscriptionStatus {
  if (status.installPlanRef || status.installplan) return status;
  const planName = sub.metadata?.annotations?.[generatedByAnnotation];
  const plan = planName ? plans.find((candidate) => nameOf(candidate) === planName) : undefined;
  if (!plan) return status;
  const reference = referenceOf(plan);
  return {
    ...status,
    installPlanRef: reference,
    installplan: { apiVersion: reference.apiVersion, kind: reference.kind, name: reference.name, uuid: reference.uid },
    installPlanGeneration: Number((plan.spec as { generation?: number } | undefined)?.generation ?? 0),
    state: 'UpgradePending',
    currentCSV: asString(sub.spec?.startingCSV),
    lastUpdated: formatTime(now),
  };
}

/**
 * The content of each visible catalog. A catalog that cannot be read fails resolution when a
 * Subscription of this namespace targets it; otherwise it is left out, so one broken catalog does
 * not stop unrelated namespaces.
 */
async function loadCatalogs(context: CatalogControllerContext, sources: readonly AnyObject[], subscriptions: readonly SubscriptionObject[]): Promise<ResolverCatalog[]> {
  const catalogs: ResolverCatalog[] = [];
  for (const source of sources) {
    const key = { namespace: source.metadata?.namespace ?? '', name: nameOf(source) };
    if (specInvalidReason((source.spec ?? {}) as Record<string, unknown>, context.sourceTypes().keys())) continue;
    const targeted = subscriptions.some((sub) => sub.spec?.source === key.name && sub.spec?.sourceNamespace === key.namespace);
    try {
      const content = await context.connections.content(key, catalogSourceRevision(source));
      catalogs.push({ ...key, priority: Number((source.spec as { priority?: number } | undefined)?.priority ?? 0), content });
    } catch (error) {
      if (targeted) throw new Error(`error using catalogsource ${key.namespace}/${key.name}: ${describeError(error)}`);
      context.logger.warn('catalog left out of resolution', { catalogSource: `${key.namespace}/${key.name}`, error: describeError(error) });
    }
  }
  return catalogs;
}

function resolverSubscription(sub: SubscriptionObject): ResolverSubscription {
  return {
    name: nameOf(sub),
    package: asString(sub.spec?.name),
    channel: asString(sub.spec?.channel),
    source: asString(sub.spec?.source),
    sourceNamespace: asString(sub.spec?.sourceNamespace),
    ...(sub.spec?.startingCSV ? { startingCSV: sub.spec.startingCSV } : {}),
    ...(sub.status?.installedCSV ? { installedCSV: sub.status.installedCSV } : {}),
  };
}

/**
 * Upstream's conditions while bundles are unpacked: `BundleUnpacking` (`UnpackingInProgress`) while
 * a pull runs, `BundleUnpackFailed` when one failed (kept while it is retried, so the reason stays
 * visible). Resolution itself succeeded, so `ResolutionFailed` goes.
 */
async function reportUnpacking(context: CatalogControllerContext, working: Working[], unpacking: readonly Unfinished[], now: Date) {
  const pending = unpacking.filter((entry) => entry.state === 'pending');
  const failed = unpacking.filter((entry) => entry.state === 'failed');
  for (const sub of working) {
    sub.status = removeConditions(sub.status, ['ResolutionFailed'], now).status;
    if (pending.length > 0) {
      sub.status = setCondition(sub.status, { type: 'BundleUnpacking', status: 'True', reason: 'UnpackingInProgress', message: pending.map((entry) => entry.message).join('; ') }, now).status;
    } else {
      sub.status = removeConditions(sub.status, ['BundleUnpacking'], now).status;
    }
    if (failed.length > 0) {
      const reason = failed.some((entry) => entry.reason === 'BundleUnpackFailed') ? 'BundleUnpackFailed' : 'ErrorPreventedUnpacking';
      sub.status = setCondition(sub.status, { type: 'BundleUnpackFailed', status: 'True', reason, message: failed.map((entry) => entry.message).join('; ') }, now).status;
    }
  }
  const before = working.map((sub) => sub.object.status?.conditions);
  await writeSubscriptions(context, working);
  if (failed.length > 0) {
    working.forEach((sub, index) => {
      // one event per new failure, not one per retry pass
      if (!isSemanticallyEqual(before[index], sub.status.conditions)) void context.events().warning(sub.object, 'BundleUnpackFailed', failed.map((entry) => entry.message).join('; '));
    });
  }
  const retryInMs = failed.map((entry) => entry.retryInMs);
  return { requeueAfter: pending.length > 0 ? context.bundleUnpackPollMs : Math.max(100, Math.min(...retryInMs)) };
}

async function failResolution(context: CatalogControllerContext, working: Working[], error: unknown, now: Date) {
  const unsatisfiable = hasErrorCode(error, 'OLM_RESOLVER_UNSATISFIABLE');
  // A resolution over its budget costs as much again on the same input: like unsatisfiable constraints,
  // it is tried again when the inputs change, not on a backoff (upstream has no budget).
  const overBudget = hasErrorCode(error, 'OLM_RESOLVER_BUDGET_EXHAUSTED');
  for (const sub of working) {
    sub.status = setCondition(
      sub.status,
      { type: 'ResolutionFailed', status: 'True', reason: unsatisfiable ? 'ConstraintsNotSatisfiable' : 'ErrorPreventedResolution', message: describeError(error) },
      now,
    ).status;
  }
  await writeSubscriptions(context, working);
  for (const sub of working) {
    void context.events().warning(sub.object, 'ResolutionFailed', describeError(error));
  }
  // Unsatisfiable constraints change only when the inputs do (and then a watch event brings us back).
  if (!unsatisfiable && !overBudget) throw error;
}

async function writeSubscriptions(context: CatalogControllerContext, working: Working[]): Promise<void> {
  const client = context.client();
  for (const sub of working) {
    if (isSemanticallyEqual(sub.object.status, sub.status)) continue;
    const stored = await updateStatus<SubscriptionObject>(
      client,
      { ...Kinds.subscription, namespace: sub.object.metadata?.namespace ?? '', name: nameOf(sub.object) },
      (latest) => {
        latest.status = sub.status as SubscriptionObject['status'];
      },
      { fieldManager: context.fieldManager },
    );
    (sub as { object: SubscriptionObject }).object = stored;
    sub.status = stored.status ?? {};
  }
}

/**
 * Whether an OperatorGroup opts into fail-forward upgrades. Current OLM writes `spec.upgradeStrategy` as a
 * string (`TechPreviewUnsafeFailForward`); older releases wrote `{ name: UnsafeFailForward }`. Both are honoured.
 */
export function isUnsafeFailForward(group: AnyObject): boolean {
  const strategy = (group.spec as { upgradeStrategy?: unknown } | undefined)?.upgradeStrategy;
  if (typeof strategy === 'string') return strategy === 'TechPreviewUnsafeFailForward';
  const name = (strategy as { name?: unknown } | undefined)?.name;
  return name === 'TechPreviewUnsafeFailForward' || name === 'UnsafeFailForward';
}
