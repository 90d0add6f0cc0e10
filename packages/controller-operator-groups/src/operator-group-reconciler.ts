import type { CachedCsv, Condition, ObjectReference } from '@olm/api';
import {
  formatTargetNamespaces,
  Annotations,
  CSVMessages,
  CSVPhases,
  CSVReasons,
  csvProvidedApis,
  formatProvidedApis,
  isCopied,
  Labels,
  OperatorGroupConditionTypes,
  OperatorGroupMessages,
  OperatorGroupReasons,
  parseProvidedApis,
  setCsvPhase,
  updatedConditions,
  withoutCondition,
} from '@olm/api';
import type { CachedObject, KubeClient, ObjectReader, RbacGenerator, ReconcileContext, Reconciler, ReconcileRequest } from '@olm/core';
import { describeError } from '@olm/core';
import { isNamespaceTerminating, isNotFound, isSemanticallyEqual, isTerminatingNamespace, updateObject, updateStatus, upsertOwnedFields, type EventRecorder } from '@olm/controller-runtime';
import { formatTime } from '@olm/go-format';
import { GroupClusterRoleNames, type GroupKey } from './group-cluster-role-names.js';
import { csvReference, fieldManager, Kinds, ogReference, type Og } from './kinds.js';
import { resolveTargetNamespaces, sameNamespaceSet } from './target-namespaces.js';

/** What the OperatorGroup reconciler uses, bound lazily: the client it writes with, the RBAC generator, Events, the clock. */
export interface OperatorGroupServices {
  client(): KubeClient;
  rbac(): RbacGenerator;
  recorder(): EventRecorder;
  now(): Date;
}

/** The services, and the group ClusterRole names the reconciler has seen (its own memory). */
type Shared = OperatorGroupServices & { readonly groupRoleNames: GroupClusterRoleNames };

/** The OperatorGroup reconciler (upstream syncOperatorGroups). */
export function createOperatorGroupReconciler(services: OperatorGroupServices): Reconciler {
  const shared: Shared = {
    client: () => services.client(),
    rbac: () => services.rbac(),
    recorder: () => services.recorder(),
    now: () => services.now(),
    groupRoleNames: new GroupClusterRoleNames(() => services.rbac()),
  };
  return {
    name: 'operatorgroup',
    for: Kinds.operatorGroup,
    owns: [Kinds.clusterRole],
    watches: [
      { ...Kinds.namespace, map: (_, cache) => allGroups(cache) },
      // A copy is no member of the groups beside it: its events (tens of thousands) concern none.
      { ...Kinds.clusterServiceVersion, map: (csv, cache) => (isCopied(csv) ? [] : groupsInNamespace(cache, csv.metadata?.namespace ?? '')) },
      { ...Kinds.serviceAccount, map: (account, cache) => groupsUsingServiceAccount(cache, account) },
      // Roles that lost their owner labels (recreated by kube's aggregation controller) are known by name.
      { ...Kinds.clusterRole, map: (role, cache) => groupNamingRole(shared, cache, role) },
    ],
    async reconcile(request, context) {
      const og = context.cache.get(Kinds.operatorGroup, request.name, request.namespace);
      if (!og) return cleanUpDeletedGroup(shared, request, context);
      await syncMultipleGroupsCondition(shared, og, context);
      // As upstream, a group whose service account is missing goes no further until it appears.
      if (!(await syncServiceAccount(shared, og, context))) return;
      const targets = await syncStatusNamespaces(shared, og, context);
      if (!targets) return;
      await syncNamespaceLabels(shared, og, targets, context);
      await annotateMemberCsvs(shared, og, targets, context);
      await ensureClusterRoles(shared, og, context);
      await pruneProvidedApis(shared, og, context);
    },
  };
}

function allGroups(cache: ObjectReader): ReconcileRequest[] {
  return cache.list(Kinds.operatorGroup).map((og) => ({ namespace: og.metadata?.namespace ?? '', name: og.metadata?.name ?? '' }));
}

function groupsInNamespace(cache: ObjectReader, namespace: string): ReconcileRequest[] {
  return cache.list(Kinds.operatorGroup, { namespace }).map((og) => ({ namespace, name: og.metadata?.name ?? '' }));
}

function groupNamingRole(shared: Shared, cache: ObjectReader, role: CachedObject): ReconcileRequest[] {
  const group = shared.groupRoleNames.groupOf(role.metadata?.name ?? '', groupKeys(cache.list(Kinds.operatorGroup)));
  return group ? [group] : [];
}

function* groupKeys(groups: readonly CachedObject[]): Iterable<GroupKey> {
  for (const og of groups) yield { namespace: og.metadata?.namespace ?? '', name: og.metadata?.name ?? '' };
}

function groupsUsingServiceAccount(cache: ObjectReader, account: CachedObject): ReconcileRequest[] {
  const namespace = account.metadata?.namespace ?? '';
  return (cache.list(Kinds.operatorGroup, { namespace }))
    .filter((og) => og.spec?.serviceAccountName === account.metadata?.name)
    .map((og) => ({ namespace, name: og.metadata.name }));
}

/**
 * `spec.serviceAccountName` (upstream `UserDefinedServiceAccountSyncer`): `status.serviceAccountRef` names
 * the ServiceAccount once it exists; while it does not, the condition `OperatorGroupServiceAccount` True /
 * `ServiceAccountNotFound` "ServiceAccount <name> not found" stands instead and the sync stops (false).
 * No name: neither. When the reference changes, the group's CSVs failed `InstallComponentFailedNoRetry` get
 * another chance (§1.4). The catalog operator installs the group's InstallPlans as that account (scoped installs).
 */
async function syncServiceAccount(shared: Shared, og: Og, context: ReconcileContext): Promise<boolean> {
  const name = og.spec?.serviceAccountName ?? '';
  const conditions = og.status?.conditions ?? [];
  const type = OperatorGroupConditionTypes.ServiceAccount;
  if (name === '') {
    if (og.status?.serviceAccountRef === undefined && !withoutCondition(conditions, type)) return true;
    if (og.status?.serviceAccountRef !== undefined) await resetFailedNoRetryMembers(shared, og, context);
    await writeServiceAccountStatus(shared, og, undefined, (current) => withoutCondition(current, type));
    return true;
  }
  const account = context.cache.get(Kinds.serviceAccount, name, og.metadata.namespace);
  if (!account) {
    const notFound = { type, status: 'True' as const, reason: OperatorGroupReasons.ServiceAccountNotFound, message: OperatorGroupMessages.serviceAccountNotFound(name) };
    if (og.status?.serviceAccountRef !== undefined || updatedConditions(conditions, notFound, '')) {
      await writeServiceAccountStatus(shared, og, undefined, (current) => updatedConditions(current, notFound, formatTime(shared.now())));
    }
    return false;
  }
  // What upstream's reference.GetReference makes of a ServiceAccount.
  const reference: ObjectReference = {
    kind: 'ServiceAccount',
    namespace: og.metadata.namespace,
    name,
    uid: account.metadata?.uid,
    apiVersion: 'v1',
    resourceVersion: account.metadata?.resourceVersion,
  };
  if (sameReference(og.status?.serviceAccountRef, reference) && !withoutCondition(conditions, type)) return true;
  if (!sameReference(og.status?.serviceAccountRef, reference)) await resetFailedNoRetryMembers(shared, og, context);
  await writeServiceAccountStatus(shared, og, reference, (current) => withoutCondition(current, type));
  return true;
}

function sameReference(a: ObjectReference | undefined, b: ObjectReference | undefined): boolean {
  const fields = (reference: ObjectReference | undefined) =>
    reference && [reference.kind, reference.namespace, reference.name, reference.uid, reference.apiVersion, reference.resourceVersion];
  return isSemanticallyEqual(fields(a), fields(b));
}

/** Writes `status.serviceAccountRef` (removed when undefined), the changed conditions and `lastUpdated`. */
async function writeServiceAccountStatus(
  shared: Shared,
  og: Og,
  reference: ObjectReference | undefined,
  changeConditions: (conditions: readonly Condition[]) => Condition[] | undefined,
): Promise<void> {
  await updateStatus<Og>(shared.client(), ogReference(og), (live) => {
    const status = { ...(live.status ?? { lastUpdated: formatTime(shared.now()) }) };
    const conditions = changeConditions(status.conditions ?? []);
    if (!conditions && sameReference(status.serviceAccountRef, reference)) return false;
    if (conditions) {
      if (conditions.length > 0) status.conditions = conditions;
      else delete status.conditions;
    }
    if (reference) status.serviceAccountRef = reference;
    else delete status.serviceAccountRef;
    status.lastUpdated = formatTime(shared.now());
    live.status = status;
  });
}

/** The group's CSVs failed `InstallComponentFailedNoRetry` go to `Pending/DetectedClusterChange` (no Event, as upstream). */
async function resetFailedNoRetryMembers(shared: Shared, og: Og, context: ReconcileContext): Promise<void> {
  for (const csv of context.cache.list(Kinds.clusterServiceVersion, { namespace: og.metadata.namespace })) {
    if (isCopied(csv) || csv.metadata.annotations?.[Annotations.operatorGroup] !== og.metadata.name) continue;
    if (csv.status?.reason !== CSVReasons.ComponentFailedNoRetry) continue;
    try {
      await updateStatus<CachedCsv>(shared.client(), csvReference(csv), (live) => {
        if (live.status?.reason !== CSVReasons.ComponentFailedNoRetry) return false;
        live.status = setCsvPhase(live.status ?? {}, CSVPhases.Pending, CSVReasons.DetectedClusterChange, CSVMessages.clusterResourcesChanged, shared.now());
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/** MultipleOperatorGroup condition on every group of a namespace with more than one. */
async function syncMultipleGroupsCondition(shared: Shared, og: Og, context: ReconcileContext): Promise<void> {
  const count = context.cache.list(Kinds.operatorGroup, { namespace: og.metadata.namespace }).length;
  const conditions = og.status?.conditions ?? [];
  const present = conditions.some((condition) => condition.type === OperatorGroupConditionTypes.MultipleOperatorGroup);
  if ((count > 1) === present) return;
  await updateStatus<Og>(shared.client(), ogReference(og), (live) => {
    const others = (live.status?.conditions ?? []).filter((condition) => condition.type !== OperatorGroupConditionTypes.MultipleOperatorGroup);
    const next: Condition[] =
      count > 1
        ? [
            ...others,
            {
              type: OperatorGroupConditionTypes.MultipleOperatorGroup,
              status: 'True',
              reason: OperatorGroupReasons.MultipleOperatorGroupsFound,
              message: OperatorGroupMessages.MultipleOperatorGroupsFound,
              lastTransitionTime: formatTime(shared.now()),
            },
          ]
        : others;
    live.status = { ...(live.status ?? { lastUpdated: formatTime(shared.now()) }), conditions: next };
  });
}

/** Resolves the targets and writes `status.namespaces` (with `lastUpdated`) when the set changed. */
async function syncStatusNamespaces(shared: Shared, og: Og, context: ReconcileContext): Promise<string[] | undefined> {
  let targets: string[];
  try {
    const namespaces = context.cache.list(Kinds.namespace).map((namespace) => ({
      name: namespace.metadata?.name ?? '',
      labels: namespace.metadata?.labels,
    }));
    targets = resolveTargetNamespaces(og.spec ?? {}, namespaces);
  } catch (error) {
    if (!isNamespaceTerminating(context.cache, og.metadata.namespace)) void shared.recorder().warning(og, 'InvalidTargetNamespaces', describeError(error));
    return undefined;
  }
  if (og.status?.namespaces && sameNamespaceSet(og.status.namespaces, targets)) return targets;
  await updateStatus<Og>(shared.client(), ogReference(og), (live) => {
    if (live.status?.namespaces && sameNamespaceSet(live.status.namespaces, targets)) return false;
    live.status = { ...(live.status ?? {}), namespaces: targets, lastUpdated: formatTime(shared.now()) };
  });
  return targets;
}

/** `olm.operatorgroup.uid/<uid>` on each targeted namespace (not for AllNamespaces); stale labels removed. */
async function syncNamespaceLabels(shared: Shared, og: Og, targets: readonly string[], context: ReconcileContext): Promise<void> {
  const uid = og.metadata.uid;
  if (!uid) return;
  const key = `${Labels.operatorGroupUidPrefix}${uid}`;
  const all = targets.length === 1 && targets[0] === '';
  const wanted = new Set(all ? [] : targets);
  const liveUids = new Set(context.cache.list(Kinds.operatorGroup).map((group) => group.metadata?.uid));
  for (const namespace of context.cache.list(Kinds.namespace)) {
    // A namespace being deleted is left alone: a label write there makes the namespace controller's update conflict and retry.
    if (isTerminatingNamespace(namespace)) continue;
    const name = namespace.metadata?.name ?? '';
    const labels = namespace.metadata?.labels ?? {};
    const stale = Object.keys(labels).filter(
      (label) => label.startsWith(Labels.operatorGroupUidPrefix) && (label === key ? !wanted.has(name) : !liveUids.has(label.slice(Labels.operatorGroupUidPrefix.length))),
    );
    const missing = wanted.has(name) && labels[key] === undefined;
    if (stale.length === 0 && !missing) continue;
    try {
      await updateObject(shared.client(), { ...Kinds.namespace, name }, (live) => {
        if (isTerminatingNamespace(live)) return false;
        const next = { ...(live.metadata?.labels ?? {}) };
        for (const label of stale) delete next[label];
        if (wanted.has(name)) next[key] = '';
        live.metadata = { ...live.metadata, labels: next };
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/** The three group annotations on every non-copied CSV of the group's namespace (when it is the only group). */
async function annotateMemberCsvs(shared: Shared, og: Og, targets: readonly string[], context: ReconcileContext): Promise<void> {
  if (context.cache.list(Kinds.operatorGroup, { namespace: og.metadata.namespace }).length !== 1) return;
  const wanted = {
    [Annotations.operatorGroup]: og.metadata.name,
    [Annotations.operatorNamespace]: og.metadata.namespace,
    [Annotations.targetNamespaces]: formatTargetNamespaces(targets),
  };
  for (const csv of context.cache.list(Kinds.clusterServiceVersion, { namespace: og.metadata.namespace })) {
    if (isCopied(csv) || csv.metadata.deletionTimestamp) continue;
    const annotations = csv.metadata.annotations ?? {};
    if (Object.entries(wanted).every(([key, value]) => annotations[key] === value)) continue;
    try {
      await updateObject<CachedCsv>(shared.client(), csvReference(csv), (live) => {
        live.metadata.annotations = { ...(live.metadata.annotations ?? {}), ...wanted };
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

function memberCsvs(og: Og, context: ReconcileContext): CachedCsv[] {
  return (context.cache.list(Kinds.clusterServiceVersion, { namespace: og.metadata.namespace })).filter((csv) => !isCopied(csv));
}

/** The admin/edit/view ClusterRoles of the group, aggregating its provided APIs. */
async function ensureClusterRoles(shared: Shared, og: Og, context: ReconcileContext): Promise<void> {
  const apis = parseProvidedApis(og.metadata.annotations?.[Annotations.providedAPIs]);
  for (const csv of memberCsvs(og, context)) for (const api of csvProvidedApis(csv)) apis.add(api);
  const roles = shared.rbac().operatorGroupClusterRoles({ operatorGroup: og, providedApis: [...apis].sort() });
  shared.groupRoleNames.remember(og.metadata);
  // OLM's labels and aggregationRule; the rules are the aggregation controller's.
  for (const role of roles) await upsertOwnedFields(shared.client(), context.cache, role, ['metadata.labels', 'aggregationRule'], { fieldManager });
}

/** Drops APIs from `olm.providedAPIs` that no member CSV provides (not for static groups, not while a provider is pending). */
async function pruneProvidedApis(shared: Shared, og: Og, context: ReconcileContext): Promise<void> {
  if (og.spec?.staticProvidedAPIs) return;
  const annotated = parseProvidedApis(og.metadata.annotations?.[Annotations.providedAPIs]);
  if (annotated.size === 0) return;
  const provided = new Set<string>();
  for (const csv of memberCsvs(og, context)) {
    const apis = csvProvidedApis(csv);
    const phase = csv.status?.phase ?? '';
    if (apis.size > 0 && (phase === CSVPhases.None || phase === CSVPhases.Pending)) return;
    for (const api of apis) provided.add(api);
  }
  const kept = [...annotated].filter((api) => provided.has(api));
  if (kept.length === annotated.size) return;
  await updateObject<Og>(shared.client(), ogReference(og), (live) => {
    const annotations = { ...(live.metadata.annotations ?? {}) };
    const current = parseProvidedApis(annotations[Annotations.providedAPIs]);
    const value = formatProvidedApis([...current].filter((api) => provided.has(api)));
    if (value === '') delete annotations[Annotations.providedAPIs];
    else annotations[Annotations.providedAPIs] = value;
    if (isSemanticallyEqual(annotations, live.metadata.annotations)) return false;
    live.metadata.annotations = annotations;
  });
}

/**
 * A deleted group: its ClusterRoles go, found by the RBAC generator's owner labels and by the names the RBAC generator gives
 * them (a role recreated by kube's aggregation controller has no labels), and its namespace labels
 * (removed at the next group sync).
 */
async function cleanUpDeletedGroup(shared: Shared, request: ReconcileRequest, context: ReconcileContext): Promise<void> {
  const client = shared.client();
  const selector = shared.rbac().ownership.selector({ kind: 'OperatorGroup', name: request.name, namespace: request.namespace ?? '' });
  const labelled = context.cache.list(Kinds.clusterRole, { labelSelector: selector }).map((role) => role.metadata?.name ?? '');
  const named = shared.groupRoleNames.remember({ namespace: request.namespace ?? '', name: request.name }).filter((name) => context.cache.get(Kinds.clusterRole, name));
  for (const name of new Set([...labelled, ...named])) {
    await client.delete({ ...Kinds.clusterRole, name }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
  const liveUids = new Set(context.cache.list(Kinds.operatorGroup).map((group) => group.metadata?.uid));
  for (const namespace of context.cache.list(Kinds.namespace)) {
    if (isTerminatingNamespace(namespace)) continue;
    const labels = namespace.metadata?.labels ?? {};
    const stale = Object.keys(labels).filter(
      (label) => label.startsWith(Labels.operatorGroupUidPrefix) && !liveUids.has(label.slice(Labels.operatorGroupUidPrefix.length)),
    );
    if (stale.length === 0) continue;
    await updateObject(client, { ...Kinds.namespace, name: namespace.metadata?.name ?? '' }, (live) => {
      if (isTerminatingNamespace(live)) return false;
      const next = { ...(live.metadata?.labels ?? {}) };
      for (const label of stale) delete next[label];
      live.metadata = { ...live.metadata, labels: next };
    }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
}
