import type { ClusterServiceVersionStatus, RequirementStatus } from '@olm/api';
import {
  Annotations,
  CSVCleanupFinalizer,
  CSVMessages,
  CSVPhases,
  CSVReasons,
  CSVUncopiableReasons,
  Labels,
  OLMConfigConditionTypes,
  OLMConfigMessages,
  OperatorConditionTypes,
  UpgradeStrategies,
} from '@olm/api';
import type { CachedObject, InstallStatus, InstallStrategy, ObjectReader, ReconcileContext, ReconcileRequest, ReconcileResult, Reconciler } from '@olm/core';
import { describeError, hasErrorCode } from '@olm/core';
import { isNotFound, isSemanticallyEqual, RuntimeErrorCodes, updateObject, updateStatus } from '@olm/controller-runtime';
import { reconcileApiIntersection, type GroupApiView } from './api-intersection.js';
import { isApiServiceAdoptableBy } from './api-service-ownership.js';
import { apiServiceResourceProblem, apiServicesAvailability, deleteOwnedApiServices, findApiService, type ServingAvailability } from './api-services.js';
import { expectedCaBundles } from './ca-bundles.js';
import { certRenewalReason, certsRotateAt, deleteAuthReaderBindings } from './cert-install.js';
import { hasCertResources } from './cert-resources.js';
import { allNamespacesCopyTargets, copiedCsvsEnabled } from './copied-csvs-config.js';
import { isSamePhase, setCsvPhase, type CsvStatus } from './csv-status.js';
import { ownedDeploymentSelector, type StrategyContext } from './deployment-install.js';
import type { SubscriptionConfig } from './deployment-strategy.js';
import { toInstallModeSet, unsupportedTargetsReason } from './install-modes.js';
import { fnv64aHex, Kinds, kubeObjectOf } from './kinds.js';
import { formatProvidedApis, parseProvidedApis } from './provided-apis.js';
import { installOutcome, isInstalled, ServingMessages, strategyOnly, type InstallChecks } from './install-outcome.js';
import { checkRequirements, discoveryNeeded, type ApiServiceObject, type RequirementsResult } from './requirements.js';
import { unknownDeploymentReference } from './strategy-references.js';
import { installerFor } from './scoped-installer.js';
import { readServingSnapshot, type ServingSnapshot } from './serving-snapshot.js';
import { webhookDescriptionProblem } from './webhook-descriptions.js';
import { deleteWebhookConfigurations, webhooksAvailability } from './webhooks.js';
import { clusterOlmConfig, csvProvidedApis, csvReference, isCopied, namespaceViews, ogReference, upsert, type Csv, type Og, type Shared } from './shared.js';
import { deleteTargetRbac, syncTargetRbac } from './target-rbac.js';
import { formatTargetNamespaces } from './target-namespaces.js';
import { formatTime } from '@olm/go-format';

type Step = ReconcileResult | 'continue';
const proceed = 'continue' as const;
const done: ReconcileResult = {};

const recoverableGroupReasons: readonly string[] = [
  CSVReasons.NoTargetNamespaces,
  CSVReasons.NoOperatorGroup,
  CSVReasons.TooManyOperatorGroups,
  CSVReasons.UnsupportedOperatorGroup,
];

/** The ClusterServiceVersion reconciler: pre-checks, then one phase transition per sync, as upstream. */
export function createCsvReconciler(shared: Shared): Reconciler {
  return {
    name: 'csv',
    for: Kinds.csv,
    owns: [Kinds.deployment],
    watches: [
      { ...Kinds.operatorGroup, map: (og, cache) => csvsForOperatorGroup(cache, og) },
      { ...Kinds.crd, map: (crd, cache) => csvsUsingCrd(cache, crd.metadata?.name ?? '') },
      { ...Kinds.apiService, map: (apiService, cache) => csvsUsingApiService(cache, apiService.metadata?.name ?? '') },
      // A Subscription's `config` shapes the deployments of the CSV it installed.
      { ...Kinds.subscription, map: csvsOfSubscription },
      {
        ...Kinds.serviceAccount,
        map: (account, cache) => [...csvsInNamespace(cache, account.metadata?.namespace ?? ''), ...csvsAffectedByRbac(shared, cache, account)],
      },
      { ...Kinds.csv, map: (csv, cache) => relatedCsvs(cache, csv as Csv) },
      // A new namespace needs the copies (CSV and RBAC) of the operators targeting it; a selector's
      // matches reach the CSVs through their OperatorGroup's status instead.
      { ...Kinds.namespace, map: (namespace, cache) => csvsTargeting(cache, namespace.metadata?.name ?? '') },
      // `spec.features.disableCopiedCSVs` decides where the copies of AllNamespaces operators go.
      { ...Kinds.olmConfig, map: (_, cache) => allNamespacesCsvs(cache) },
      // The upgrade gate: a replaced CSV's OperatorCondition holds or releases the CSVs replacing it.
      { ...Kinds.operatorCondition, map: (condition, cache) => csvsReplacing(cache, condition) },
      // Copied and lifted RBAC (and the Roles they are copied from) belong to a CSV by label; any RBAC
      // change may also satisfy a CSV waiting for its permissions, or retry one that failed for good.
      ...[Kinds.role, Kinds.roleBinding, Kinds.clusterRole, Kinds.clusterRoleBinding].map((kind) => ({
        ...kind,
        map: (object: CachedObject, cache: ObjectReader) => [...csvOwningRbac(shared, object), ...csvsAffectedByRbac(shared, cache, object)],
      })),
    ],
    async reconcile(request, context) {
      return reconcileCsv(shared, request, context);
    },
  };
}

// ---- mappers -------------------------------------------------------------------------------

function csvsInNamespace(cache: ObjectReader, namespace: string): ReconcileRequest[] {
  return cache.list(Kinds.csv, { namespace }).map((csv) => ({ namespace, name: csv.metadata?.name ?? '' }));
}

function csvsForOperatorGroup(cache: ObjectReader, og: CachedObject): ReconcileRequest[] {
  const namespace = og.metadata?.namespace ?? '';
  const requests = csvsInNamespace(cache, namespace);
  const groupApis = parseProvidedApis(og.metadata?.annotations?.[Annotations.providedAPIs]);
  if (groupApis.size > 0) {
    for (const csv of cache.list(Kinds.csv) as Csv[]) {
      if (csv.metadata.namespace === namespace || isCopied(csv)) continue;
      if ([...csvProvidedApis(csv)].some((api) => groupApis.has(api))) requests.push({ namespace: csv.metadata.namespace, name: csv.metadata.name });
    }
  }
  return requests;
}

/** Non-copied CSVs whose `olm.targetNamespaces` names the namespace or all namespaces. */
function csvsTargeting(cache: ObjectReader, namespace: string): ReconcileRequest[] {
  if (!namespace) return [];
  return (cache.list(Kinds.csv) as Csv[])
    .filter((csv) => {
      if (isCopied(csv) || csv.metadata.namespace === namespace) return false;
      const targets = csv.metadata.annotations?.[Annotations.targetNamespaces];
      return targets !== undefined && (targets === '' || targets.split(',').includes(namespace));
    })
    .map((csv) => ({ namespace: csv.metadata.namespace, name: csv.metadata.name }));
}

/** CSVs in the OperatorCondition's namespace that replace the CSV it belongs to (same name). */
function csvsReplacing(cache: ObjectReader, condition: CachedObject): ReconcileRequest[] {
  const namespace = condition.metadata?.namespace ?? '';
  return (cache.list(Kinds.csv, { namespace }) as Csv[])
    .filter((csv) => csv.spec?.replaces === condition.metadata?.name)
    .map((csv) => ({ namespace, name: csv.metadata.name }));
}

/** Non-copied CSVs of AllNamespaces operators (`olm.targetNamespaces` is empty). */
function allNamespacesCsvs(cache: ObjectReader): ReconcileRequest[] {
  return (cache.list(Kinds.csv) as Csv[])
    .filter((csv) => !isCopied(csv) && csv.metadata.annotations?.[Annotations.targetNamespaces] === '')
    .map((csv) => ({ namespace: csv.metadata.namespace, name: csv.metadata.name }));
}

/** The CSV an RBAC object was made for, as the RBAC generator's owner labels say (a copy: the CSV it was copied from). */
function csvOwningRbac(shared: Shared, object: CachedObject): ReconcileRequest[] {
  const owner = shared.rbac().ownership.ownerOf(object.metadata?.labels ?? {});
  if (owner?.kind !== 'ClusterServiceVersion') return [];
  const namespace = owner.copiedFrom ?? owner.namespace;
  return namespace ? [{ namespace, name: owner.name }] : [];
}

/**
 * CSVs an RBAC object (or ServiceAccount) may matter to: those not yet past Pending or waiting on their
 * requirements (an RBAC object may arrive in the cache before or after its CSV), and those
 * failed `InstallComponentFailedNoRetry`, which upstream resets to Pending on such a change (marked here,
 * reset by their next sync). Namespaced objects concern their namespace, cluster-scoped ones all.
 */
function csvsAffectedByRbac(shared: Shared, cache: ObjectReader, object: CachedObject): ReconcileRequest[] {
  const namespace = object.metadata?.namespace;
  const csvs = (cache.list(Kinds.csv, namespace ? { namespace } : {}) as Csv[]).filter((csv) => !isCopied(csv));
  const requests: ReconcileRequest[] = [];
  for (const csv of csvs) {
    const phase = csv.status?.phase ?? CSVPhases.None;
    const reason = csv.status?.reason;
    if (phase === CSVPhases.Failed && reason === CSVReasons.ComponentFailedNoRetry) {
      shared.clusterChanges.add(`${csv.metadata.namespace}/${csv.metadata.name}`);
    } else if (phase !== CSVPhases.None && phase !== CSVPhases.Pending && reason !== CSVReasons.RequirementsNotMet) {
      continue;
    }
    requests.push({ namespace: csv.metadata.namespace, name: csv.metadata.name });
  }
  return requests;
}

function csvsUsingCrd(cache: ObjectReader, crdName: string): ReconcileRequest[] {
  return (cache.list(Kinds.csv) as Csv[])
    .filter((csv) => {
      const crds = csv.spec?.customresourcedefinitions;
      return [...(crds?.owned ?? []), ...(crds?.required ?? [])].some((crd) => crd.name === crdName);
    })
    .map((csv) => ({ namespace: csv.metadata.namespace, name: csv.metadata.name }));
}

/** The CSVs a Subscription installed or is installing. */
function csvsOfSubscription(subscription: CachedObject): ReconcileRequest[] {
  const namespace = subscription.metadata?.namespace ?? '';
  const status = (subscription as { status?: { installedCSV?: string; currentCSV?: string } }).status;
  return [...new Set([status?.installedCSV, status?.currentCSV])].filter((name): name is string => !!name).map((name) => ({ namespace, name }));
}

/** CSVs owning or requiring the APIService `<version>.<group>`. */
function csvsUsingApiService(cache: ObjectReader, name: string): ReconcileRequest[] {
  return (cache.list(Kinds.csv) as Csv[])
    .filter((csv) => {
      const services = csv.spec?.apiservicedefinitions;
      return [...(services?.owned ?? []), ...(services?.required ?? [])].some((service) => `${service.version}.${service.group}` === name);
    })
    .map((csv) => ({ namespace: csv.metadata.namespace, name: csv.metadata.name }));
}

/** The CSV it replaces, the CSVs replacing it, and its copies' source. */
function relatedCsvs(cache: ObjectReader, csv: Csv): ReconcileRequest[] {
  const namespace = csv.metadata.namespace;
  const requests: ReconcileRequest[] = [];
  if (csv.spec?.replaces) requests.push({ namespace, name: csv.spec.replaces });
  const owned = new Set((csv.spec?.customresourcedefinitions?.owned ?? []).map((crd) => crd.name));
  for (const other of cache.list(Kinds.csv, { namespace }) as Csv[]) {
    if (other.metadata.name === csv.metadata.name) continue;
    const sharesCrd = (other.spec?.customresourcedefinitions?.owned ?? []).some((crd) => owned.has(crd.name));
    // Replacers wait on this CSV; owners of the same CRDs may be in (or out of) an owner conflict with it.
    if (other.spec?.replaces === csv.metadata.name || sharesCrd) requests.push({ namespace, name: other.metadata.name });
  }
  const source = csv.metadata.labels?.[Labels.copiedFrom];
  if (source) requests.push({ namespace: source, name: csv.metadata.name });
  return requests;
}

// ---- the sync ------------------------------------------------------------------------------

async function reconcileCsv(shared: Shared, request: ReconcileRequest, context: ReconcileContext): Promise<ReconcileResult | void> {
  const namespace = request.namespace ?? '';
  const cached = context.cache.get(Kinds.csv, request.name, namespace) as Csv | undefined;
  shared.metrics()?.setCount(context.cache.list(Kinds.csv).filter((csv) => !isCopied(csv)).length);
  if (!cached) {
    shared.metrics()?.forget(namespace, request.name);
    forgetCsv(shared, namespace, request.name);
    // Copies left by a CSV that went without its finalizer (only OLM makes them, so they are orphans).
    await deleteTargetRbac(shared.client(), namespace, request.name, context.cache, { clusterScoped: false, ownership: shared.rbac().ownership });
    return;
  }
  if (isCopied(cached)) return reconcileCopy(shared, cached, context);
  if (cached.metadata.deletionTimestamp) return finalize(shared, cached, context);
  // Each status write brings another reconcile, which records the state written.
  shared.metrics()?.observe({
    namespace,
    name: request.name,
    version: cached.spec?.version ?? '',
    phase: cached.status?.phase ?? '',
    reason: cached.status?.reason ?? '',
  });
  const csv = await ensureFinalizer(shared, cached);
  await deleteDroppedWebhookConfigurations(shared, csv).catch((error: unknown) => {
    context.logger.warn('could not delete the webhook configurations of removed webhooks', { error: describeError(error) });
  });
  const checked = await preChecks(shared, csv, context);
  let result: ReconcileResult | void = undefined;
  if (checked === proceed) result = await transitionPhase(shared, csv, context);
  else result = checked;
  const latest = (context.cache.get(Kinds.csv, request.name, namespace) as Csv | undefined) ?? csv;
  const copies = await syncCopies(shared, latest, context).catch((error: unknown) => {
    context.logger.warn('could not sync copied CSVs', { error: describeError(error) });
    return copiesOf(context.cache, latest);
  });
  await syncTargetRbac(shared, latest, copies, context);
  await syncCopyingDisabledEvent(shared, latest, context).catch((error: unknown) => {
    context.logger.warn('could not sync the DisabledCopiedCSVs event', { error: describeError(error) });
  });
  return result;
}

/** Drops what the controller remembers of a CSV that is gone. */
function forgetCsv(shared: Shared, namespace: string, name: string): void {
  shared.copyingDisabledEvents.delete(`${namespace}/${name}`);
  shared.webhookCleanups.delete(`${namespace}/${name}`);
  shared.generatedRbac.delete(`${namespace}/${name}`);
}

/**
 * A CSV that no longer has webhooks or owned APIServices has no serving snapshot whose check would
 * delete the configurations of removed webhooks (upstream checks webhooks on every CSV): they are deleted
 * by owner label here, once per spec change. A CSV never edited (generation 1) has nothing to delete.
 */
async function deleteDroppedWebhookConfigurations(shared: Shared, csv: Csv): Promise<void> {
  const generation = csv.metadata.generation ?? 1;
  if (generation <= 1 || hasCertResources(csv)) return;
  const key = `${csv.metadata.namespace}/${csv.metadata.name}`;
  const version = `${csv.metadata.uid ?? ''}/${generation}`;
  if (shared.webhookCleanups.get(key) === version) return;
  await deleteWebhookConfigurations(shared.client(), csv);
  shared.webhookCleanups.set(key, version);
}

async function ensureFinalizer(shared: Shared, csv: Csv): Promise<Csv> {
  if (csv.metadata.finalizers?.includes(CSVCleanupFinalizer)) return csv;
  return updateObject<Csv>(shared.client(), csvReference(csv), (live) => {
    if (live.metadata.finalizers?.includes(CSVCleanupFinalizer)) return false;
    live.metadata.finalizers = [...(live.metadata.finalizers ?? []), CSVCleanupFinalizer];
  });
}

/** On deletion: remove the CSV's copies and the RBAC made for its target namespaces, then the finalizer. */
async function finalize(shared: Shared, csv: Csv, context: ReconcileContext): Promise<void> {
  shared.metrics()?.forget(csv.metadata.namespace, csv.metadata.name);
  forgetCsv(shared, csv.metadata.namespace, csv.metadata.name);
  const client = shared.client();
  for (const copy of copiesOf(context.cache, csv)) {
    await client.delete(csvReference(copy)).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
  await deleteTargetRbac(client, csv.metadata.namespace, csv.metadata.name, context.cache, { clusterScoped: true, ownership: shared.rbac().ownership });
  // What it owns outside its namespace (its namespaced objects go with their owner references).
  await deleteOwnedApiServices(client, csv);
  await deleteWebhookConfigurations(client, csv);
  await deleteAuthReaderBindings(client, csv);
  if (!csv.metadata.finalizers?.includes(CSVCleanupFinalizer)) return;
  try {
    await updateObject<Csv>(client, csvReference(csv), (live) => {
      if (!live.metadata.finalizers?.includes(CSVCleanupFinalizer)) return false;
      live.metadata.finalizers = live.metadata.finalizers.filter((finalizer) => finalizer !== CSVCleanupFinalizer);
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Moves the CSV's status (upstream's SetPhaseWithEventIfChanged), unless another writer moved it first. */
async function setPhase(
  shared: Shared,
  csv: Csv,
  phase: string,
  reason: string,
  message: string,
  requirementStatus?: RequirementStatus[],
  rotateAt?: Date,
): Promise<boolean> {
  const status = (csv.status ?? {}) as CsvStatus;
  const requirementsChanged = requirementStatus !== undefined && !isSemanticallyEqual(requirementStatus, csv.status?.requirementStatus);
  if (isSamePhase(status, phase, reason, message) && !requirementsChanged) return false;
  const fromPhase = status.phase ?? '';
  let written = false;
  await updateStatus<Csv>(shared.client(), csvReference(csv), (live) => {
    if ((live.status?.phase ?? '') !== fromPhase) return false;
    const now = shared.now();
    const next = setCsvPhase((live.status ?? {}) as CsvStatus, phase, reason, message, now) as ClusterServiceVersionStatus;
    if (requirementStatus !== undefined) next.requirementStatus = requirementStatus;
    // New serving certificates (upstream sets these when an install rotated them).
    if (rotateAt !== undefined && next.certsRotateAt !== formatTime(rotateAt)) {
      next.certsLastUpdated = formatTime(now);
      next.certsRotateAt = formatTime(rotateAt);
    }
    live.status = next;
    written = true;
  });
  if (written && !isSamePhase(status, phase, reason, message)) {
    void shared.recorder().event(csv, phase === CSVPhases.Failed ? 'Warning' : 'Normal', reason, message);
  }
  return written;
}

const fail = (shared: Shared, csv: Csv, reason: string, message: string) => setPhase(shared, csv, CSVPhases.Failed, reason, message);


// ---- pre-checks (upstream transitionCSVState, before the phase switch) ---------------------

async function preChecks(shared: Shared, csv: Csv, context: ReconcileContext): Promise<Step> {
  if (csv.status?.reason === CSVReasons.ComponentFailedNoRetry) {
    // Left alone until an RBAC object or ServiceAccount changes (upstream syncObject).
    if (shared.clusterChanges.delete(`${csv.metadata.namespace}/${csv.metadata.name}`)) {
      await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.DetectedClusterChange, CSVMessages.clusterResourcesChanged);
    }
    return done;
  }
  for (const crd of csv.spec?.customresourcedefinitions?.owned ?? []) {
    if (!crd.name.includes('.')) {
      context.logger.warn('owned CRD name is not <plural>.<group>; not syncing', { crd: crd.name });
      return done;
    }
  }
  const labelled = await ensureApiLabels(shared, csv);
  if (labelled) return done;

  const groups = context.cache.list(Kinds.operatorGroup, { namespace: csv.metadata.namespace }) as Og[];
  if (groups.length === 0) {
    await fail(shared, csv, CSVReasons.NoOperatorGroup, CSVMessages.noOperatorGroup);
    return done;
  }
  if (groups.length > 1) {
    await fail(shared, csv, CSVReasons.TooManyOperatorGroups, CSVMessages.tooManyOperatorGroups);
    return done;
  }
  const og = groups[0]!;
  const targets = og.status?.namespaces;
  if (targets) {
    const wanted = {
      [Annotations.operatorGroup]: og.metadata.name,
      [Annotations.operatorNamespace]: og.metadata.namespace,
      [Annotations.targetNamespaces]: formatTargetNamespaces(targets),
    };
    const annotations = csv.metadata.annotations ?? {};
    if (Object.entries(wanted).some(([key, value]) => annotations[key] !== value)) {
      await updateObject<Csv>(shared.client(), csvReference(csv), (live) => {
        live.metadata.annotations = { ...(live.metadata.annotations ?? {}), ...wanted };
      });
      if (targets.length === 0) await fail(shared, csv, CSVReasons.NoTargetNamespaces, CSVMessages.noTargetNamespacesMatched);
      return done;
    }
    // Not upstream, which fails only when it writes the annotations: an empty target list is written as
    // "", which would read back as AllNamespaces on the next sync. It stays a failure while it is empty.
    if (targets.length === 0) {
      await fail(shared, csv, CSVReasons.NoTargetNamespaces, CSVMessages.noTargetNamespacesMatched);
      return done;
    }
  }

  let modes;
  try {
    modes = toInstallModeSet(csv.spec?.installModes);
  } catch (error) {
    await fail(shared, csv, CSVReasons.InvalidInstallModes, describeError(error));
    return done;
  }
  const annotation = csv.metadata.annotations?.[Annotations.targetNamespaces];
  if (annotation === undefined) {
    await fail(shared, csv, CSVReasons.NoTargetNamespaces, CSVMessages.missingTargetNamespacesAnnotation);
    return done;
  }
  const unsupported = unsupportedTargetsReason(modes, csv.metadata.namespace, annotation.split(','));
  if (unsupported) {
    await fail(shared, csv, CSVReasons.UnsupportedOperatorGroup, unsupported);
    return done;
  }
  return providedApiCheck(shared, csv, og, context);
}

/** `olm.api.<fnv64a(Kind.version.group)>: provided` on the CSV for each API it provides. */
async function ensureApiLabels(shared: Shared, csv: Csv): Promise<boolean> {
  const wanted = new Map([...csvProvidedApis(csv)].map((api) => [`${Labels.apiPrefix}${fnv64aHex(api)}`, 'provided']));
  const labels = csv.metadata.labels ?? {};
  const stale = Object.keys(labels).filter((key) => key.startsWith(Labels.apiPrefix) && !wanted.has(key));
  const missing = [...wanted].filter(([key, value]) => labels[key] !== value);
  if (stale.length === 0 && missing.length === 0) return false;
  await updateObject<Csv>(shared.client(), csvReference(csv), (live) => {
    const next = { ...(live.metadata.labels ?? {}) };
    for (const key of Object.keys(next)) if (key.startsWith(Labels.apiPrefix) && !wanted.has(key)) delete next[key];
    for (const [key, value] of wanted) next[key] = value;
    live.metadata.labels = next;
  });
  return true;
}

function groupView(og: Og): GroupApiView {
  return {
    namespace: og.metadata.namespace,
    name: og.metadata.name,
    targetNamespaces: og.status?.namespaces ?? [],
    providedApis: parseProvidedApis(og.metadata.annotations?.[Annotations.providedAPIs]),
    staticProvidedApis: og.spec?.staticProvidedAPIs === true,
  };
}

/** §2.4: add to or remove from the group's `olm.providedAPIs`, or fail on a conflict. */
async function providedApiCheck(shared: Shared, csv: Csv, og: Og, context: ReconcileContext): Promise<Step> {
  const provided = csvProvidedApis(csv);
  const group = groupView(og);
  const others = (context.cache.list(Kinds.operatorGroup) as Og[]).map(groupView);
  const result = reconcileApiIntersection(group, others, provided);
  if (result === 'NoAPIConflict') return proceed;
  const conflicting = result === 'APIConflict' || (group.staticProvidedApis && (result === 'AddAPIs' || result === 'RemoveAPIs'));
  // As upstream: a CSV already failed for an owner conflict keeps that reason (its deployments are gone).
  if (conflicting && csv.status?.reason === CSVReasons.InterOperatorGroupOwnerConflict) return done;
  if (group.staticProvidedApis && (result === 'AddAPIs' || result === 'RemoveAPIs')) {
    await deleteDeployments(shared, csv);
    await fail(shared, csv, CSVReasons.CannotModifyStaticOperatorGroupProvidedAPIs, CSVMessages.staticProvidedAPIsCannotChange);
    return done;
  }
  if (result === 'APIConflict') {
    await deleteDeployments(shared, csv);
    await fail(shared, csv, CSVReasons.InterOperatorGroupOwnerConflict, CSVMessages.intersectingGroupsProvideSameAPIs);
    return done;
  }
  let written = false;
  await updateObject<Og>(shared.client(), ogReference(og), (live) => {
    const current = parseProvidedApis(live.metadata.annotations?.[Annotations.providedAPIs]);
    const next = result === 'AddAPIs' ? new Set([...current, ...provided]) : new Set([...current].filter((api) => !provided.has(api)));
    const value = formatProvidedApis(next);
    const annotations = { ...(live.metadata.annotations ?? {}) };
    if (value === '') delete annotations[Annotations.providedAPIs];
    else annotations[Annotations.providedAPIs] = value;
    if (isSemanticallyEqual(annotations, live.metadata.annotations)) return false;
    live.metadata.annotations = annotations;
    written = true;
  });
  // As upstream: an AddAPIs with nothing left to add (the annotation holds what the cached group did
  // not show) lets the CSV go on, else it would wait for a group update that never comes.
  if (!written && result === 'AddAPIs') return proceed;
  // The group's update requeues this CSV.
  return done;
}

async function deleteDeployments(shared: Shared, csv: Csv): Promise<void> {
  const client = shared.client();
  const owned = await client.list(Kinds.deployment, { namespace: csv.metadata.namespace, labelSelector: ownedDeploymentSelector(csv) });
  for (const deployment of owned.items) {
    await client.delete({ ...Kinds.deployment, namespace: csv.metadata.namespace, name: deployment.metadata?.name ?? '' }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
}

// ---- the phase switch ----------------------------------------------------------------------

async function transitionPhase(shared: Shared, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  const phase = csv.status?.phase ?? CSVPhases.None;
  switch (phase) {
    case CSVPhases.None:
      await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsUnknown, CSVMessages.requirementsNotYetChecked);
      return;
    case CSVPhases.Pending:
      return pending(shared, csv, context);
    case CSVPhases.InstallReady:
      return installReady(shared, csv, context);
    case CSVPhases.Installing:
      return installing(shared, csv, context);
    case CSVPhases.Succeeded:
      return succeeded(shared, csv, context);
    case CSVPhases.Failed:
      return failed(shared, csv, context);
    case CSVPhases.Replacing:
      return replacing(shared, csv, context);
    case CSVPhases.Deleting:
      await shared.client().delete(csvReference(csv)).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      return;
    default:
      return;
  }
}

function strategyFor(shared: Shared, csv: Csv): InstallStrategy | undefined {
  return shared.strategies().get(csv.spec?.install?.strategy ?? '');
}

async function invalidStrategy(shared: Shared, csv: Csv, detail = 'unrecognized install strategy'): Promise<void> {
  await fail(shared, csv, CSVReasons.InvalidStrategy, CSVMessages.installStrategyInvalid(detail));
}

async function pending(shared: Shared, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  const replaced = replacedCsv(csv, context);
  if (replaced) {
    const notUpgradeable = notUpgradeableReason(replaced, context);
    if (notUpgradeable !== undefined) {
      // A change of the OperatorCondition reconciles this CSV again.
      await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.OperatorConditionNotUpgradeable, CSVMessages.notUpgradeable(notUpgradeable));
      return;
    }
  }
  if (!strategyFor(shared, csv)) return invalidStrategy(shared, csv);
  const requirements = await requirementsOf(shared, csv, context);
  if ('invalid' in requirements) return invalidStrategy(shared, csv, requirements.invalid);
  const statuses = requirements.statuses;
  if (!requirements.met) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsNotMet, CSVMessages.requirementsNotFound, statuses);
    return { requeueAfter: shared.requeueAfterMs };
  }
  const webhookProblem = webhookDescriptionProblem(csv);
  if (webhookProblem) {
    await setPhase(shared, csv, CSVPhases.Failed, CSVReasons.InvalidWebhookDescription, webhookProblem, statuses);
    return;
  }
  if (crdOwnerConflict(csv, context)) {
    await setPhase(shared, csv, CSVPhases.Failed, CSVReasons.OwnerConflict, crdOwnerConflictMessage, statuses);
    return;
  }
  if (await apiServiceOwnerConflict(shared, csv, context)) {
    await setPhase(shared, csv, CSVPhases.Failed, CSVReasons.OwnerConflict, apiServiceOwnerConflictMessage, statuses);
    return;
  }
  const previous = replacedCsv(csv, context);
  if (previous && previous.status?.phase !== CSVPhases.Replacing) {
    // Wait for the replaced CSV to be marked Replacing; its change requeues this one.
    if (!isSemanticallyEqual(csv.status?.requirementStatus, statuses)) {
      const status = csv.status ?? {};
      await setPhase(shared, csv, status.phase ?? CSVPhases.Pending, status.reason ?? '', status.message ?? '', statuses);
    }
    return;
  }
  await setPhase(shared, csv, CSVPhases.InstallReady, CSVReasons.RequirementsMet, CSVMessages.allRequirementsFound, statuses);
}

const crdOwnerConflictMessage = 'conflicting CRD owner in namespace';
const apiServiceOwnerConflictMessage = 'unable to adopt APIService';

type RequirementsOutcome = RequirementsResult | { readonly invalid: string };

/** The requirement checks, after reading the discovery documents and APIServices they need. */
async function requirementsOf(shared: Shared, csv: Csv, context: ReconcileContext): Promise<RequirementsOutcome> {
  const served = new Map<string, ReadonlySet<string> | undefined>();
  for (const groupVersion of discoveryNeeded(csv)) served.set(groupVersion, await shared.servedKinds(groupVersion));
  const apiServices = new Map<string, ApiServiceObject | undefined>();
  for (const description of csv.spec?.apiservicedefinitions?.required ?? []) {
    const name = `${description.version}.${description.group}`;
    apiServices.set(name, await findApiService(shared.client(), name));
  }
  try {
    return checkRequirements(csv, {
      cache: context.cache,
      serverVersion: await shared.serverVersion(),
      servedKinds: (groupVersion) => served.get(groupVersion),
      apiService: (name) => apiServices.get(name),
    });
  } catch (error) {
    // upstream: a rule its checker refuses makes the whole install strategy invalid.
    if (hasErrorCode(error, 'OLM_CSV_INVALID_RULE')) return { invalid: (error as Error).message };
    throw error;
  }
}

/** An owned APIService exists and may not be taken over (upstream `apiServiceOwnerConflicts`). */
async function apiServiceOwnerConflict(shared: Shared, csv: Csv, context: ReconcileContext): Promise<boolean> {
  for (const description of csv.spec?.apiservicedefinitions?.owned ?? []) {
    const apiService = await findApiService(shared.client(), `${description.version}.${description.group}`);
    if (apiService && !isApiServiceAdoptableBy(apiService.metadata?.labels, csv, context.cache)) return true;
  }
  return false;
}

interface OperatorConditionObject extends CachedObject {
  spec?: { overrides?: Array<{ type?: string; status?: string; message?: string }> };
  status?: { conditions?: Array<{ type?: string; status?: string; message?: string; observedGeneration?: number }> };
}

/**
 * Why the replaced CSV's operator may not be upgraded (upstream `isOperatorUpgradeable`), or undefined: its
 * OperatorCondition's `Upgradeable` override wins (only `True` lets it upgrade), else the reported condition,
 * which counts as not upgradeable when it was observed for an older generation. No OperatorCondition means upgradeable.
 */
function notUpgradeableReason(replaced: Csv, context: ReconcileContext): string | undefined {
  const condition = context.cache.get(Kinds.operatorCondition, replaced.metadata.name, replaced.metadata.namespace) as OperatorConditionObject | undefined;
  if (!condition) return undefined;
  const override = (condition.spec?.overrides ?? []).find((item) => item.type === OperatorConditionTypes.Upgradeable);
  if (override) return override.status === 'True' ? undefined : `The operator is not upgradeable: ${override.message ?? ''}`;
  const reported = (condition.status?.conditions ?? []).find((item) => item.type === OperatorConditionTypes.Upgradeable);
  if (!reported) return undefined;
  if ((reported.observedGeneration ?? 0) < (condition.metadata?.generation ?? 0)) {
    return `The operatorcondition status ${JSON.stringify(reported.type)}=${JSON.stringify(reported.status ?? '')} is outdated`;
  }
  return reported.status === 'False' ? `The operator is not upgradeable: ${reported.message ?? ''}` : undefined;
}

/** Whether the CSV's OperatorGroup lets failed CSVs be replaced (`upgradeStrategy: TechPreviewUnsafeFailForward`). */
function isFailForward(csv: Csv, context: ReconcileContext): boolean {
  const groups = context.cache.list(Kinds.operatorGroup, { namespace: csv.metadata.namespace }) as Og[];
  if (groups.length !== 1) return false;
  // `spec.upgradeStrategy` is read in both shapes OLM releases used: `{ name: … }` and the plain string.
  const strategy = groups[0]!.spec?.upgradeStrategy as unknown;
  const name = typeof strategy === 'object' && strategy !== null ? (strategy as { name?: unknown }).name : strategy;
  return name === UpgradeStrategies.UnsafeFailForward;
}

function strategyContext(csv: Csv, context: ReconcileContext): StrategyContext {
  return { cache: context.cache, config: subscriptionConfig(csv, context.cache) };
}

/** The `spec.config` of the Subscription that installed this CSV, if any (Subscriptions are watched, so cached). */
function subscriptionConfig(csv: Csv, cache: ObjectReader): SubscriptionConfig | undefined {
  let subscriptions: readonly CachedObject[];
  try {
    subscriptions = cache.list(Kinds.subscription, { namespace: csv.metadata.namespace });
  } catch {
    return undefined; // no Subscription API: nothing configures the CSV
  }
  const subscription = subscriptions.find((item) => {
    const status = (item as { status?: { installedCSV?: string; currentCSV?: string } }).status;
    return status?.installedCSV === csv.metadata.name || status?.currentCSV === csv.metadata.name;
  }) as { spec?: { config?: SubscriptionConfig } } | undefined;
  return subscription?.spec?.config;
}

async function installReady(shared: Shared, csv: Csv, context: ReconcileContext): Promise<void> {
  const strategy = strategyFor(shared, csv);
  if (!strategy) return invalidStrategy(shared, csv);
  const installer = installerFor(shared.client(), context.cache, csv.metadata.namespace);
  if ('unavailable' in installer) {
    context.logger.warn('failed to get a client for operator deployment', { csv: csv.metadata.name, namespace: csv.metadata.namespace, error: installer.unavailable });
    return;
  }
  try {
    await strategy.install(csv, { ...strategyContext(csv, context), ...installer });
  } catch (error) {
    // upstream retries every install error except those no retry can fix (invalid strategy, timeout, …).
    const reason = isUnrecoverable(error) ? CSVReasons.ComponentFailedNoRetry : CSVReasons.ComponentFailed;
    await fail(shared, csv, reason, CSVMessages.installStrategyFailed(describeError(error)));
    return;
  }
  const rotateAt = hasCertResources(csv) ? await certsRotateAt(shared.client(), csv) : undefined;
  await setPhase(shared, csv, CSVPhases.Installing, CSVReasons.InstallSuccessful, CSVMessages.waitingForInstallComponents, undefined, rotateAt);
}

/**
 * An install error that retrying cannot fix: one marked `unrecoverable: true` by its install strategy (as
 * `InstallStatus.unrecoverable`), or the deployment strategy's `OLM_CSV_INVALID_STRATEGY`.
 */
function isUnrecoverable(error: unknown): boolean {
  return (typeof error === 'object' && error !== null && (error as { unrecoverable?: unknown }).unrecoverable === true) || hasErrorCode(error, 'OLM_CSV_INVALID_STRATEGY');
}

/**
 * The CA each serving deployment should carry, or undefined after moving the CSV to
 * `Pending/NeedsReinstall "calculated deployment install is bad"`: an owned APIService or webhook names a
 * deployment the strategy lacks, or what was installed for it is not in the sync's snapshot.
 */
async function expectedServing(shared: Shared, csv: Csv, context: ReconcileContext, serving: ServingSnapshot): Promise<ReadonlyMap<string, string> | undefined> {
  let problem = unknownDeploymentReference(csv);
  let caBundles: ReadonlyMap<string, string> = new Map();
  if (!problem && hasCertResources(csv)) {
    try {
      caBundles = expectedCaBundles(csv, serving);
    } catch (error) {
      problem = describeError(error);
    }
  }
  if (!problem) return caBundles;
  context.logger.warn('unable to calculate expected deployment', { csv: csv.metadata.name, problem });
  await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.NeedsReinstall, CSVMessages.calculatedDeploymentBad);
  return undefined;
}

/** The strategy's health, and for a CSV owning APIServices or webhooks whether they serve. */
async function installChecks(
  shared: Shared,
  csv: Csv,
  strategy: InstallStrategy,
  context: ReconcileContext,
  serving: ServingSnapshot,
  caBundles: ReadonlyMap<string, string>,
): Promise<InstallChecks> {
  let status: InstallStatus;
  try {
    status = await strategy.checkHealth(csv, { ...strategyContext(csv, context), caBundles });
  } catch (error) {
    status = { healthy: false, reason: 'Unknown', message: describeError(error) };
  }
  if (!hasCertResources(csv)) return strategyOnly(status);
  const checked = async (check: () => Promise<ServingAvailability>): Promise<ServingAvailability> => {
    try {
      return await check();
    } catch (error) {
      return { available: false, error: describeError(error) };
    }
  };
  return {
    strategy: status,
    apiServices: await checked(() => apiServicesAvailability(shared.client(), csv, serving)),
    webhooks: await checked(() => webhooksAvailability(shared.client(), csv, serving)),
  };
}

async function installing(shared: Shared, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  const strategy = strategyFor(shared, csv);
  if (!strategy) return invalidStrategy(shared, csv);
  const serving = await readServingSnapshot(shared.client(), csv);
  const caBundles = await expectedServing(shared, csv, context, serving);
  if (!caBundles) return;
  const checks = await installChecks(shared, csv, strategy, context, serving, caBundles);
  const outcome = installOutcome(checks, CSVPhases.Installing, CSVReasons.Waiting);
  if (outcome === 'retry') return { requeueAfter: shared.healthPollMs };
  if (!isInstalled(checks) && outcome.phase === CSVPhases.Installing) {
    // As upstream, only a CSV that stays Installing times out (another outcome is a transition of its own).
    const since = Date.parse(csv.status?.lastTransitionTime ?? '');
    const elapsed = Number.isNaN(since) ? 0 : shared.now().getTime() - since;
    if (elapsed >= shared.installTimeoutMs) {
      await fail(shared, csv, CSVReasons.InstallCheckFailed, CSVMessages.installTimeout);
      return;
    }
    await setPhase(shared, csv, outcome.phase, outcome.reason, outcome.message);
    return { requeueAfter: Math.max(1, Math.min(shared.healthPollMs, shared.installTimeoutMs - elapsed)) };
  }
  await setPhase(shared, csv, outcome.phase, outcome.reason, outcome.message);
  if (!isInstalled(checks)) return { requeueAfter: shared.healthPollMs };
}

/**
 * For a CSV owning APIServices or webhooks, on Succeeded and Failed (upstream order): the resources OLM
 * generated for its APIServices must be intact, and its serving certificates not due for renewal, both
 * as the sync's snapshot shows them. Returns true when it moved the CSV (or, failed and not actionable,
 * left it so).
 */
async function servingResourcesChanged(shared: Shared, csv: Csv, context: ReconcileContext, serving: ServingSnapshot, from: 'Succeeded' | 'Failed'): Promise<boolean> {
  if (!hasCertResources(csv)) return false;
  const problem = apiServiceResourceProblem(csv, serving, context.cache);
  if (problem) {
    context.logger.info('API resources are unavailable', { csv: csv.metadata.name, problem: problem.message });
    if (from === 'Succeeded') await fail(shared, csv, CSVReasons.APIServiceResourceIssue, problem.message);
    // An APIService someone else owns keeps the CSV failed: reinstalling cannot take it.
    else if (problem.actionable) await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.APIServiceResourcesNeedReinstall, problem.message);
    return true;
  }
  const renewal = certRenewalReason(csv, serving, shared.now());
  if (renewal) {
    context.logger.info('CSV owns resources that require a cert refresh', { csv: csv.metadata.name, reason: renewal });
    const message = from === 'Succeeded' ? ServingMessages.certRefreshRequired : CSVMessages.needsCertRefresh;
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.NeedsCertRotation, message);
    return true;
  }
  return false;
}

async function succeeded(shared: Shared, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  const replacer = replacingCsv(csv, context);
  if (replacer) {
    if (await setPhase(shared, csv, CSVPhases.Replacing, CSVReasons.BeingReplaced, CSVMessages.beingReplaced(replacer.metadata.name))) {
      shared.metrics()?.upgraded();
    }
    return;
  }
  const strategy = strategyFor(shared, csv);
  if (!strategy) return invalidStrategy(shared, csv);
  const serving = await readServingSnapshot(shared.client(), csv);
  if (await servingResourcesChanged(shared, csv, context, serving, 'Succeeded')) return;
  const requirements = await requirementsOf(shared, csv, context);
  if ('invalid' in requirements) return invalidStrategy(shared, csv, requirements.invalid);
  if (!requirements.met) {
    await setPhase(shared, csv, CSVPhases.Failed, CSVReasons.RequirementsNotMet, CSVMessages.requirementsNoLongerMet, requirements.statuses);
    return;
  }
  const caBundles = await expectedServing(shared, csv, context, serving);
  if (!caBundles) return;
  const checks = await installChecks(shared, csv, strategy, context, serving, caBundles);
  const outcome = installOutcome(checks, CSVPhases.Failed, CSVReasons.ComponentUnhealthy);
  if (outcome === 'retry') return { requeueAfter: shared.healthPollMs };
  await setPhase(shared, csv, outcome.phase, outcome.reason, outcome.message);
  if (isInstalled(checks)) await ensureProvidedApiClusterRoles(shared, csv, context, serving);
  // Nothing watches the Secrets, Services and webhook configurations it depends on, nor the clock.
  if (hasCertResources(csv)) return { requeueAfter: shared.requeueAfterMs };
}

async function ensureProvidedApiClusterRoles(shared: Shared, csv: Csv, context: ReconcileContext, serving: ServingSnapshot): Promise<void> {
  const owned = csv.spec?.customresourcedefinitions?.owned ?? [];
  if (owned.length === 0 && (csv.spec?.apiservicedefinitions?.owned ?? []).length === 0) return;
  const crds = owned.flatMap((crd) => {
    const cached = context.cache.get(Kinds.crd, crd.name);
    return cached ? [kubeObjectOf(cached, Kinds.crd)] : [];
  });
  const apiServices = [...serving.apiServices.values()].flatMap((apiService) => (apiService ? [kubeObjectOf(apiService, Kinds.apiService)] : []));
  let roles;
  try {
    roles = shared.rbac().providedApiClusterRoles({ csv, crds, apiServices });
  } catch (error) {
    context.logger.warn("couldn't generate clusterroles for provided api types", { error: describeError(error) });
    return;
  }
  for (const role of roles) {
    await upsert(shared.client(), context.cache, role, ['metadata.labels', 'rules', 'aggregationRule']);
  }
}

async function failed(shared: Shared, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  if (isFailForward(csv, context)) {
    const replacer = replacingCsv(csv, context);
    if (replacer) {
      const message = CSVMessages.failForwardBeingReplaced(CSVPhases.Failed, replacer.metadata.name);
      if (await setPhase(shared, csv, CSVPhases.Replacing, CSVReasons.BeingReplaced, message)) shared.metrics()?.upgraded();
      return;
    }
  }
  const strategy = strategyFor(shared, csv);
  const reason = csv.status?.reason ?? '';
  if (!strategy) {
    if (reason !== CSVReasons.InvalidStrategy) await invalidStrategy(shared, csv);
    return;
  }
  // The pre-checks passed, so a group-related failure is over.
  if (recoverableGroupReasons.includes(reason)) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsUnknown, CSVMessages.installModesNowSupported);
    return;
  }
  if (reason === CSVReasons.InterOperatorGroupOwnerConflict) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsUnknown, CSVMessages.noLongerIntersecting);
    return;
  }
  if (reason === CSVReasons.CannotModifyStaticOperatorGroupProvidedAPIs) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsUnknown, CSVMessages.staticGroupsNowSupportAPIs);
    return;
  }
  // Not upstream: a CSV failed on an owner conflict stays Failed while the conflict lasts (no Pending ↔ Failed loop).
  if (reason === CSVReasons.OwnerConflict && (crdOwnerConflict(csv, context) || (await apiServiceOwnerConflict(shared, csv, context)))) return;
  const requirements = await requirementsOf(shared, csv, context);
  // Not upstream, which alternates with Pending/RequirementsNotMet: an invalid strategy stays Failed until the CSV changes.
  if ('invalid' in requirements) return invalidStrategy(shared, csv, requirements.invalid);
  if (!requirements.met) {
    await setPhase(shared, csv, CSVPhases.Pending, CSVReasons.RequirementsNotMet, CSVMessages.requirementsNotMet, requirements.statuses);
    return;
  }
  // Not upstream either (it reinstalls, then fails again in Pending): refused webhooks stay refused while unchanged.
  if (reason === CSVReasons.InvalidWebhookDescription && webhookDescriptionProblem(csv) === csv.status?.message) return;
  const serving = await readServingSnapshot(shared.client(), csv);
  if (await servingResourcesChanged(shared, csv, context, serving, 'Failed')) return { requeueAfter: shared.requeueAfterMs };
  const caBundles = await expectedServing(shared, csv, context, serving);
  if (!caBundles) return;
  const checks = await installChecks(shared, csv, strategy, context, serving, caBundles);
  const outcome = installOutcome(checks, CSVPhases.Pending, CSVReasons.NeedsReinstall);
  if (outcome === 'retry') return { requeueAfter: shared.healthPollMs };
  await setPhase(shared, csv, outcome.phase, outcome.reason, outcome.message);
  if (outcome.phase === CSVPhases.Failed) return { requeueAfter: shared.healthPollMs };
}

async function replacing(shared: Shared, csv: Csv, context: ReconcileContext): Promise<ReconcileResult | void> {
  // Only the oldest CSV of a chain is deleted: removing an intermediate one would break the chain.
  if (replacedCsv(csv, context)) return;
  const replacer = replacingCsv(csv, context);
  if (!replacer) throw new Error(CSVMessages.noReplacementFound);
  // With fail-forward the direct replacer may itself have failed and be replaced: the newest decides.
  const next = isFailForward(csv, context) ? newestReplacer(csv, context) ?? replacer : replacer;
  if (next.status?.phase === CSVPhases.Succeeded) {
    await setPhase(shared, csv, CSVPhases.Deleting, CSVReasons.Replaced, CSVMessages.replaced);
  }
}

// ---- replacement chains --------------------------------------------------------------------

/** `IsReplacing`: the CSV named by `spec.replaces` (self-reference ignored). */
function replacedCsv(csv: Csv, context: ReconcileContext): Csv | undefined {
  const name = csv.spec?.replaces;
  if (!name || name === csv.metadata.name) return undefined;
  return context.cache.get(Kinds.csv, name, csv.metadata.namespace) as Csv | undefined;
}

/** `IsBeingReplaced`: a non-copied CSV in the namespace whose `spec.replaces` names this one. */
function replacingCsv(csv: Csv, context: ReconcileContext): Csv | undefined {
  return (context.cache.list(Kinds.csv, { namespace: csv.metadata.namespace }) as Csv[])
    .filter((other) => other.metadata.name !== csv.metadata.name && !isCopied(other) && other.spec?.replaces === csv.metadata.name)
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))[0];
}

/** The end of the chain of CSVs replacing this one (cycle safe). */
function newestReplacer(csv: Csv, context: ReconcileContext): Csv | undefined {
  const seen = new Set([csv.metadata.name]);
  let newest: Csv | undefined;
  for (let next = replacingCsv(csv, context); next && !seen.has(next.metadata.name); next = replacingCsv(next, context)) {
    seen.add(next.metadata.name);
    newest = next;
  }
  return newest;
}

/** Every CSV linked to this one through `spec.replaces`, either way (cycle safe). */
export function replacementChain(csv: Csv, csvs: readonly Csv[]): Set<string> {
  const byName = new Map(csvs.map((item) => [item.metadata.name, item]));
  const chain = new Set<string>([csv.metadata.name]);
  const queue = [csv.metadata.name];
  while (queue.length > 0) {
    const name = queue.pop()!;
    const current = byName.get(name);
    const linked = [
      ...(current?.spec?.replaces ? [current.spec.replaces] : []),
      ...csvs.filter((item) => item.spec?.replaces === name).map((item) => item.metadata.name),
    ];
    for (const next of linked) {
      if (chain.has(next)) continue;
      chain.add(next);
      queue.push(next);
    }
  }
  return chain;
}

/** A CSV outside this CSV's replacement chain, in its namespace, owns one of its CRDs. */
function crdOwnerConflict(csv: Csv, context: ReconcileContext): boolean {
  const owned = new Set((csv.spec?.customresourcedefinitions?.owned ?? []).map((crd) => crd.name));
  if (owned.size === 0) return false;
  const csvs = (context.cache.list(Kinds.csv, { namespace: csv.metadata.namespace }) as Csv[]).filter((item) => !isCopied(item));
  const chain = replacementChain(csv, csvs);
  return csvs.some(
    (other) => !chain.has(other.metadata.name) && (other.spec?.customresourcedefinitions?.owned ?? []).some((crd) => owned.has(crd.name)),
  );
}

// ---- copied CSVs (§2.7) --------------------------------------------------------------------

function copiesOf(cache: ObjectReader, csv: Csv): Csv[] {
  return (cache.list(Kinds.csv) as Csv[]).filter(
    (item) => item.metadata.name === csv.metadata.name && item.metadata.labels?.[Labels.copiedFrom] === csv.metadata.namespace,
  );
}

/** The CSV's `olm.targetNamespaces` when it is copiable and the only group of its namespace is its own. */
function copiableTargets(shared: Shared, csv: Csv, context: ReconcileContext): string | undefined {
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
function copyTargets(shared: Shared, csv: Csv, context: ReconcileContext): string[] {
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
async function syncCopyingDisabledEvent(shared: Shared, csv: Csv, context: ReconcileContext): Promise<void> {
  if (copiableTargets(shared, csv, context) !== '' || csv.metadata.deletionTimestamp) return;
  const key = `${csv.metadata.namespace}/${csv.metadata.name}`;
  const uid = csv.metadata.uid ?? '';
  const disabled = !copiedCsvsEnabled(clusterOlmConfig(context.cache));
  const known = shared.copyingDisabledEvents.get(key);
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
  shared.copyingDisabledEvents.set(key, { uid, disabled });
}

/**
 * Copies the CSV to each target namespace other than its own, and removes copies no longer targeted.
 * Returns the copies as stored (their UIDs own the RBAC copied next to them).
 */
async function syncCopies(shared: Shared, csv: Csv, context: ReconcileContext): Promise<Csv[]> {
  const client = shared.client();
  const targets = new Set(copyTargets(shared, csv, context));
  const existing = copiesOf(context.cache, csv);
  for (const copy of existing) {
    if (!targets.has(copy.metadata.namespace)) {
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
    const live = context.cache.get(Kinds.csv, csv.metadata.name, namespace) as Csv | undefined;
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
        stored = await client.create(desired, { fieldManager: 'olm-operator' });
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
async function reconcileCopy(shared: Shared, copy: Csv, context: ReconcileContext): Promise<void> {
  const sourceNamespace = copy.metadata.labels?.[Labels.copiedFrom];
  if (!sourceNamespace) return;
  const source = context.cache.get(Kinds.csv, copy.metadata.name, sourceNamespace) as Csv | undefined;
  if (source && !source.metadata.deletionTimestamp && copyTargets(shared, source, context).includes(copy.metadata.namespace)) return;
  await shared.client().delete(csvReference(copy)).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
}
