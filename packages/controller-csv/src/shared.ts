import type { ClusterServiceVersion, OLMConfig, OperatorGroup } from '@olm/api';
import { Annotations, CSVReasons, Labels, OLMConfigName } from '@olm/api';
import type { CachedObject, InstallStrategy, Logger, ObjectReader, RbacGenerator } from '@olm/core';
import { isAlreadyExists, isNotFound, isSemanticallyEqual, referenceOf, updateObject, type EventRecorder, type KubeClient } from '@olm/controller-runtime';
import { fieldManager, Kinds } from './kinds.js';
import type { GroupClusterRoleNames } from './group-cluster-role-names.js';
import type { CsvMetrics } from './metrics.js';
import { apiKey, type ApiKey } from './provided-apis.js';

export type Csv = ClusterServiceVersion & CachedObject & { metadata: { name: string; namespace: string } };
export type Og = OperatorGroup & CachedObject & { metadata: { name: string; namespace: string } };

/** Resolved options and lazily bound collaborators shared by the reconcilers. */
export interface Shared {
  client(): KubeClient;
  rbac(): RbacGenerator;
  strategies(): ReadonlyMap<string, InstallStrategy>;
  recorder(): EventRecorder;
  metrics(): CsvMetrics | undefined;
  logger(): Logger | undefined;
  now(): Date;
  serverVersion(): Promise<string | undefined>;
  /** The kinds discovery lists for a group/version (`v1`, `apps/v1`), or undefined when it is not served. */
  servedKinds(groupVersion: string): Promise<ReadonlySet<string> | undefined>;
  readonly installTimeoutMs: number;
  readonly requeueAfterMs: number;
  readonly healthPollMs: number;
  readonly copiedCsvsEnabled: boolean;
  /** Namespaces that keep the copies of AllNamespaces operators while the OLMConfig disables copies. */
  readonly protectedCopiedCsvNamespaces: ReadonlySet<string>;
  /** The OperatorGroup each generated group ClusterRole name belongs to, for roles that lost their owner labels. */
  readonly groupRoleNames: GroupClusterRoleNames;
}

/** The OLMConfig `cluster`, from the cache. */
export function clusterOlmConfig(cache: ObjectReader): OLMConfig | undefined {
  return cache.get(Kinds.olmConfig, OLMConfigName) as OLMConfig | undefined;
}

/** The cached namespaces, telling those being deleted. */
export function namespaceViews(cache: ObjectReader): Array<{ name: string; terminating: boolean }> {
  return cache.list(Kinds.namespace).map((namespace) => ({
    name: namespace.metadata?.name ?? '',
    terminating: (namespace as { status?: { phase?: string } }).status?.phase === 'Terminating',
  }));
}

/** `IsCopied`: reason Copied, operator namespace elsewhere, or the `olm.copiedFrom` label. */
export function isCopied(csv: CachedObject & { status?: { reason?: string } }): boolean {
  const operatorNamespace = csv.metadata?.annotations?.[Annotations.operatorNamespace];
  return (
    csv.status?.reason === CSVReasons.Copied ||
    (operatorNamespace !== undefined && operatorNamespace !== csv.metadata?.namespace) ||
    csv.metadata?.labels?.[Labels.copiedFrom] !== undefined
  );
}

/** The APIs a CSV provides: owned CRDs (group from the CRD name) and owned APIServices, as `Kind.version.group`. */
export function csvProvidedApis(csv: ClusterServiceVersion): Set<ApiKey> {
  const apis = new Set<ApiKey>();
  for (const crd of csv.spec?.customresourcedefinitions?.owned ?? []) {
    const dot = crd.name.indexOf('.');
    if (dot < 0) continue;
    apis.add(apiKey({ group: crd.name.slice(dot + 1), version: crd.version, kind: crd.kind }));
  }
  for (const service of csv.spec?.apiservicedefinitions?.owned ?? []) {
    apis.add(apiKey({ group: service.group, version: service.version, kind: service.kind }));
  }
  return apis;
}

export function csvReference(csv: { metadata: { name: string; namespace: string } }) {
  return { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: csv.metadata.name, namespace: csv.metadata.namespace };
}

export function ogReference(og: { metadata: { name: string; namespace: string } }) {
  return { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', name: og.metadata.name, namespace: og.metadata.namespace };
}

/**
 * Creates the object, or writes the fields OLM owns of it (`owned`) when the live ones differ, judged
 * semantically against the informer cache: an object already as wanted costs no request. `metadata.labels`
 * stands for OLM's label keys (labels others add stay); any other entry is a top-level field OLM owns
 * whole (removed when the desired object lacks it). What OLM does not own is kept as it is live, such as
 * the `rules` kube's aggregation controller writes into an aggregated ClusterRole: a write never empties
 * them. The cache may be behind: a create that meets an existing object updates the live one instead.
 */
export async function upsert(client: KubeClient, cache: ObjectReader, object: CachedObject, owned: readonly string[]): Promise<void> {
  const kind = { apiVersion: object.apiVersion!, kind: object.kind! };
  const cached = cache.get(kind, object.metadata!.name!, object.metadata?.namespace || undefined);
  if (cached && hasOwnedFields(cached, object, owned)) return;
  if (!cached) {
    try {
      await client.create(object, { fieldManager });
      return;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
  try {
    await updateObject(
      client,
      referenceOf(object),
      (live) => {
        if (hasOwnedFields(live, object, owned)) return false;
        setOwnedFields(live, object, owned);
      },
      { fieldManager },
    );
  } catch (error) {
    // Deleted since the cache saw it.
    if (!isNotFound(error)) throw error;
    await client.create(object, { fieldManager });
  }
}

function hasOwnedFields(live: CachedObject, desired: CachedObject, owned: readonly string[]): boolean {
  return owned.every((field) =>
    field === 'metadata.labels'
      ? Object.entries(desired.metadata?.labels ?? {}).every(([key, value]) => live.metadata?.labels?.[key] === value)
      : isSemanticallyEqual(live[field], desired[field]),
  );
}

function setOwnedFields(live: CachedObject, desired: CachedObject, owned: readonly string[]): void {
  for (const field of owned) {
    if (field === 'metadata.labels') live.metadata = { ...live.metadata, labels: { ...(live.metadata?.labels ?? {}), ...(desired.metadata?.labels ?? {}) } };
    else if (desired[field] === undefined) delete live[field];
    else live[field] = structuredClone(desired[field]);
  }
}
