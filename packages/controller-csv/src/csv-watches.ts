import { Annotations, type CachedNamespaced, CSVPhases, CSVReasons, Labels, parseProvidedApis, csvProvidedApis, type Subscription } from '@olm/api';
import { type CachedObject, type ObjectReader, type ReconcileRequest, type ReconcilerWatch, watchOf } from '@olm/core';
import type { CsvMemory } from './csv-memory.js';
import { Kinds } from './kinds.js';
import { type Csv, sourceCsvs } from './shared.js';
import type { TargetRbacDependencies } from './copies/target-rbac.js';

/**
 * What else reconciles a CSV: its group, the CRDs, APIServices and RBAC it needs or owns, the Subscription
 * that configures it, the CSVs it replaces or is replaced by, new namespaces it targets, the OLMConfig and
 * the OperatorCondition gating its upgrade.
 */
export function csvWatches(shared: Pick<TargetRbacDependencies, 'rbac'>, memory: Pick<CsvMemory, 'clusterChanges'>): ReconcilerWatch[] {
  return [
    { ...Kinds.operatorGroup, map: (og, cache) => csvsForOperatorGroup(cache, og) },
    { ...Kinds.customResourceDefinition, map: (crd, cache) => csvsUsingCrd(cache, crd.metadata?.name ?? '') },
    { ...Kinds.apiService, map: (apiService, cache) => csvsUsingApiService(cache, apiService.metadata?.name ?? '') },
    // A Subscription's `config` shapes the deployments of the CSV it installed.
    watchOf(Kinds.subscription, csvsOfSubscription),
    {
      ...Kinds.serviceAccount,
      map: (account, cache) => [...csvsInNamespace(cache, account.metadata?.namespace ?? ''), ...csvsAffectedByRbac(memory.clusterChanges, cache, account)],
    },
    watchOf(Kinds.clusterServiceVersion, (csv, cache) => relatedCsvs(cache, csv)),
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
      map: (object: CachedObject, cache: ObjectReader) => [...csvOwningRbac(shared, object), ...csvsAffectedByRbac(memory.clusterChanges, cache, object)],
    })),
  ];
}

function csvsInNamespace(cache: ObjectReader, namespace: string): ReconcileRequest[] {
  return sourceCsvs(cache, namespace).map((csv) => ({ namespace, name: csv.metadata.name }));
}

function csvsForOperatorGroup(cache: ObjectReader, og: CachedObject): ReconcileRequest[] {
  const namespace = og.metadata?.namespace ?? '';
  const requests = csvsInNamespace(cache, namespace);
  const groupApis = parseProvidedApis(og.metadata?.annotations?.[Annotations.providedAPIs]);
  if (groupApis.size > 0) {
    for (const csv of sourceCsvs(cache)) {
      if (csv.metadata.namespace === namespace) continue;
      if ([...csvProvidedApis(csv)].some((api) => groupApis.has(api))) requests.push({ namespace: csv.metadata.namespace, name: csv.metadata.name });
    }
  }
  return requests;
}

/** Non-copied CSVs whose `olm.targetNamespaces` names the namespace or all namespaces. */
function csvsTargeting(cache: ObjectReader, namespace: string): ReconcileRequest[] {
  if (!namespace) return [];
  return sourceCsvs(cache)
    .filter((csv) => {
      if (csv.metadata.namespace === namespace) return false;
      const targets = csv.metadata.annotations?.[Annotations.targetNamespaces];
      return targets !== undefined && (targets === '' || targets.split(',').includes(namespace));
    })
    .map((csv) => ({ namespace: csv.metadata.namespace, name: csv.metadata.name }));
}

/** CSVs in the OperatorCondition's namespace that replace the CSV it belongs to (same name). */
function csvsReplacing(cache: ObjectReader, condition: CachedObject): ReconcileRequest[] {
  const namespace = condition.metadata?.namespace ?? '';
  return (cache.list(Kinds.clusterServiceVersion, { namespace }))
    .filter((csv) => csv.spec?.replaces === condition.metadata?.name)
    .map((csv) => ({ namespace, name: csv.metadata.name }));
}

/** Non-copied CSVs of AllNamespaces operators (`olm.targetNamespaces` is empty). */
function allNamespacesCsvs(cache: ObjectReader): ReconcileRequest[] {
  return sourceCsvs(cache)
    .filter((csv) => csv.metadata.annotations?.[Annotations.targetNamespaces] === '')
    .map((csv) => ({ namespace: csv.metadata.namespace, name: csv.metadata.name }));
}

/** The CSV an RBAC object was made for, as the RBAC generator's owner labels say (a copy: the CSV it was copied from). */
function csvOwningRbac(shared: Pick<TargetRbacDependencies, 'rbac'>, object: CachedObject): ReconcileRequest[] {
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
function csvsAffectedByRbac(clusterChanges: Set<string>, cache: ObjectReader, object: CachedObject): ReconcileRequest[] {
  const namespace = object.metadata?.namespace;
  const csvs = sourceCsvs(cache, namespace || undefined);
  const requests: ReconcileRequest[] = [];
  for (const csv of csvs) {
    const phase = csv.status?.phase ?? CSVPhases.None;
    const reason = csv.status?.reason;
    if (phase === CSVPhases.Failed && reason === CSVReasons.ComponentFailedNoRetry) {
      clusterChanges.add(`${csv.metadata.namespace}/${csv.metadata.name}`);
    } else if (phase !== CSVPhases.None && phase !== CSVPhases.Pending && reason !== CSVReasons.RequirementsNotMet) {
      continue;
    }
    requests.push({ namespace: csv.metadata.namespace, name: csv.metadata.name });
  }
  return requests;
}

function csvsUsingCrd(cache: ObjectReader, crdName: string): ReconcileRequest[] {
  return sourceCsvs(cache)
    .filter((csv) => {
      const crds = csv.spec?.customresourcedefinitions;
      return [...(crds?.owned ?? []), ...(crds?.required ?? [])].some((crd) => crd.name === crdName);
    })
    .map((csv) => ({ namespace: csv.metadata.namespace, name: csv.metadata.name }));
}

/** The CSVs a Subscription installed or is installing. */
function csvsOfSubscription(subscription: CachedNamespaced<Subscription>): ReconcileRequest[] {
  const namespace = subscription.metadata.namespace;
  const status = subscription.status;
  return [...new Set([status?.installedCSV, status?.currentCSV])].filter((name): name is string => !!name).map((name) => ({ namespace, name }));
}

/** CSVs owning or requiring the APIService `<version>.<group>`. */
function csvsUsingApiService(cache: ObjectReader, name: string): ReconcileRequest[] {
  return sourceCsvs(cache)
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
  for (const other of cache.list(Kinds.clusterServiceVersion, { namespace })) {
    if (other.metadata.name === csv.metadata.name) continue;
    const sharesCrd = (other.spec?.customresourcedefinitions?.owned ?? []).some((crd) => owned.has(crd.name));
    // Replacers wait on this CSV; owners of the same CRDs may be in (or out of) an owner conflict with it.
    if (other.spec?.replaces === csv.metadata.name || sharesCrd) requests.push({ namespace, name: other.metadata.name });
  }
  const source = csv.metadata.labels?.[Labels.copiedFrom];
  if (source) requests.push({ namespace: source, name: csv.metadata.name });
  return requests;
}
