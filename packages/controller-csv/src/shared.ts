import type { ClusterServiceVersion, OLMConfig, OperatorGroup } from '@olm/api';
import { Annotations, CSVReasons, Labels, OLMConfigName } from '@olm/api';
import type { CachedObject, InstallStrategy, Logger, ObjectReader, RbacGenerator } from '@olm/core';
import { isAlreadyExists, isConflict, referenceOf, type EventRecorder, type KubeClient } from '@olm/controller-runtime';
import { fieldManager, Kinds } from './kinds.js';
import type { CsvMetrics } from './metrics.js';
import { apiKey, type ApiKey } from './provided-apis.js';
import type { GeneratedRbac } from './target-rbac.js';

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
  /** CSVs (`namespace/name`) failed `InstallComponentFailedNoRetry` whose RBAC changed since: they get another chance. */
  readonly clusterChanges: Set<string>;
  /** The informer cache, captured from the first reconcile (mappers have no other way to read it). */
  cache: ObjectReader | undefined;
  readonly installTimeoutMs: number;
  readonly requeueAfterMs: number;
  readonly healthPollMs: number;
  readonly copiedCsvsEnabled: boolean;
  /** Namespaces that keep the copies of AllNamespaces operators while the OLMConfig disables copies. */
  readonly protectedCopiedCsvNamespaces: ReadonlySet<string>;
  /**
   * Per AllNamespaces CSV (`namespace/name`): whether its `DisabledCopiedCSVs` Event is known to exist
   * (`disabled`) or to be absent, so that Events are listed once per CSV and state, not on every sync.
   */
  readonly copyingDisabledEvents: Map<string, { readonly uid: string; readonly disabled: boolean }>;
  /** Per CSV (`namespace/name`) with an edited spec: the `uid/generation` whose leftover webhook configurations are gone. */
  readonly webhookCleanups: Map<string, string>;
  /** Per CSV (`namespace/name`): the RBAC generated for its target namespaces, and from which object versions. */
  readonly generatedRbac: Map<string, GeneratedRbac>;
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
 * Creates the object, or replaces it when the fields OLM sets (`compare`) differ, judged against the
 * informer cache: an object already as wanted costs no request. The cache may be behind: a create that
 * meets an existing object, or a replace that meets a newer one, compares with the live object instead.
 * A cached copy that looks right while the live one does not is caught by the watch event of that change.
 */
export async function upsert(client: KubeClient, cache: ObjectReader, object: CachedObject, compare: readonly string[]): Promise<void> {
  const kind = { apiVersion: object.apiVersion!, kind: object.kind! };
  const namespace = object.metadata?.namespace || undefined;
  const cached = cache.get(kind, object.metadata!.name!, namespace);
  try {
    if (!cached) await client.create(object, { fieldManager });
    else if (!sameFields(cached, object, compare)) await replaceAt(client, object, cached);
  } catch (error) {
    if (!isAlreadyExists(error) && !isConflict(error)) throw error;
    await upsertLive(client, object, compare);
  }
}

async function upsertLive(client: KubeClient, object: CachedObject, compare: readonly string[]): Promise<void> {
  const live = await client.find(referenceOf(object));
  if (!live) await client.create(object, { fieldManager });
  else if (!sameFields(live, object, compare)) await replaceAt(client, object, live);
}

function sameFields(current: CachedObject, desired: CachedObject, compare: readonly string[]): boolean {
  const pick = (source: CachedObject) =>
    JSON.stringify(compare.map((field) => (field.startsWith('metadata.') ? source.metadata?.[field.slice(9)] : source[field])));
  return pick(current) === pick(desired);
}

const replaceAt = (client: KubeClient, object: CachedObject, current: CachedObject) =>
  client.replace({ ...object, metadata: { ...object.metadata, resourceVersion: current.metadata?.resourceVersion } }, { fieldManager });
