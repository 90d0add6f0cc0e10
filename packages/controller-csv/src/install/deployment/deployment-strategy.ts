import type { Deployment, SubscriptionConfig } from '@olm/api';
import type { InstallStatus, OwnerReference } from '@olm/core';
import { isSemanticallyEqual } from '@olm/controller-runtime';
import { hashOf } from '../../spec-hash.js';

type JsonObject = Record<string, unknown>;

export const deploymentSpecHashLabel = 'olm.deployment-spec-hash';
export const operatorConditionEnvName = 'OPERATOR_CONDITION_NAME';

/** The CSV fields the deployment strategy reads. */
export interface CsvForDeployment {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly uid?: string; readonly annotations?: Readonly<Record<string, string>> };
}

/** One `spec.install.spec.deployments[]` entry. */
export interface StrategyDeployment {
  readonly name: string;
  readonly spec: JsonObject;
  readonly label?: Readonly<Record<string, string>>;
}

/** Subscription `spec.config`: deployment overrides chosen by the cluster admin. */
export type { SubscriptionConfig } from '@olm/api';

/** A Deployment as OLM builds it for a strategy entry (`buildDeployment`). */
export interface BuiltDeployment {
  readonly apiVersion: 'apps/v1';
  readonly kind: 'Deployment';
  readonly metadata: { name: string; namespace: string; labels: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: OwnerReference[] };
  readonly spec: JsonObject;
}

/** Annotations never copied from the CSV onto pod templates (too large, and not about the operator). */
const notCopiedAnnotations = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

export function ownerLabels(csv: CsvForDeployment): Record<string, string> {
  return {
    'olm.owner': csv.metadata.name,
    'olm.owner.namespace': csv.metadata.namespace,
    'olm.owner.kind': 'ClusterServiceVersion',
  };
}

/** An owner reference to the CSV that neither controls nor blocks deletion (undefined before the CSV has a UID). */
export function nonBlockingOwnerReference(csv: CsvForDeployment): OwnerReference | undefined {
  if (!csv.metadata.uid) return undefined;
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    name: csv.metadata.name,
    uid: csv.metadata.uid,
    controller: false,
    blockOwnerDeletion: false,
  };
}

/** Annotations every pod template of the CSV must carry. */
export function csvTemplateAnnotations(csv: CsvForDeployment): Record<string, string> {
  return Object.fromEntries(
    Object.entries(csv.metadata.annotations ?? {}).filter(([key]) => !notCopiedAnnotations.has(key)),
  );
}

/**
 * The Deployment OLM applies for one strategy entry: the author's spec with the CSV's annotations on
 * the pod template, OLM's labels and owner, `OPERATOR_CONDITION_NAME`, the Subscription's overrides,
 * and the hash of the resulting spec (so drift can be detected later).
 */
export function buildDeployment(
  csv: CsvForDeployment,
  entry: StrategyDeployment,
  config: SubscriptionConfig = {},
): BuiltDeployment {
  const spec = structuredClone(entry.spec) as JsonObject;
  const template = objectAt(spec, 'template');
  const templateMetadata = objectAt(template, 'metadata');
  templateMetadata.annotations = { ...(templateMetadata.annotations as object | undefined), ...csvTemplateAnnotations(csv) };
  spec.revisionHistoryLimit = 1;
  const podSpec = objectAt(template, 'spec');
  const containers = (podSpec.containers as JsonObject[] | undefined) ?? [];
  for (const container of containers) {
    container.env = mergeByName(container.env as JsonObject[] | undefined, [
      { name: operatorConditionEnvName, value: csv.metadata.name },
    ]);
  }
  applySubscriptionConfig(spec, config);

  const labels: Record<string, string> = {
    ...entry.label,
    'olm.managed': 'true',
    ...ownerLabels(csv),
    [deploymentSpecHashLabel]: hashOf(spec),
  };
  const metadata: BuiltDeployment['metadata'] = { name: entry.name, namespace: csv.metadata.namespace, labels };
  if (config.annotations && Object.keys(config.annotations).length > 0) metadata.annotations = { ...config.annotations };
  const owner = nonBlockingOwnerReference(csv);
  if (owner) metadata.ownerReferences = [owner];
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec };
}

/** Applies Subscription `config` to a deployment spec as upstream: env and volumes by name, the rest replaced or appended. */
export function applySubscriptionConfig(spec: JsonObject, config: SubscriptionConfig): void {
  const template = objectAt(spec, 'template');
  const podSpec = objectAt(template, 'spec');
  const containers = (podSpec.containers as JsonObject[] | undefined) ?? [];
  for (const container of containers) {
    if (config.env) container.env = mergeByName(container.env as JsonObject[] | undefined, config.env);
    if (config.envFrom) container.envFrom = appendMissing(container.envFrom as JsonObject[] | undefined, config.envFrom);
    if (config.volumeMounts) container.volumeMounts = mergeByName(container.volumeMounts as JsonObject[] | undefined, config.volumeMounts);
    if (config.resources) container.resources = structuredClone(config.resources);
  }
  if (config.volumes) podSpec.volumes = mergeByName(podSpec.volumes as JsonObject[] | undefined, config.volumes);
  if (config.tolerations) podSpec.tolerations = appendMissing(podSpec.tolerations as JsonObject[] | undefined, config.tolerations);
  if (config.nodeSelector) podSpec.nodeSelector = { ...config.nodeSelector };
  if (config.affinity) overrideAffinity(podSpec, config.affinity);
  if (config.annotations) {
    const templateMetadata = objectAt(template, 'metadata');
    // Annotations the bundle already sets keep their value; the Subscription only adds.
    templateMetadata.annotations = { ...config.annotations, ...(templateMetadata.annotations as object | undefined) };
  }
}

const nameOf = (item: object): unknown => ('name' in item ? item.name : undefined);

/** Existing items keep their position (overridden in place); new ones are appended in the given order. */
function mergeByName(existing: JsonObject[] | undefined, additions: readonly object[]): object[] {
  const merged: object[] = (existing ?? []).map((item) => additions.find((addition) => nameOf(addition) === item.name) ?? item);
  for (const addition of additions) if (!merged.some((item) => nameOf(item) === nameOf(addition))) merged.push(addition);
  return structuredClone(merged);
}

/** Additions not already there (compared semantically: a Subscription may write a bundle's item in another key order). */
function appendMissing(existing: JsonObject[] | undefined, additions: readonly object[]): object[] {
  const merged: object[] = [...(existing ?? [])];
  for (const addition of additions) if (!merged.some((item) => isSemanticallyEqual(item, addition))) merged.push(addition);
  return structuredClone(merged);
}

/** Each affinity kind given replaces the bundle's; an empty one removes it; `{}` removes all. */
function overrideAffinity(podSpec: JsonObject, affinity: JsonObject): void {
  const current = { ...((podSpec.affinity as JsonObject | undefined) ?? {}) };
  if (Object.keys(affinity).length === 0) {
    delete podSpec.affinity;
    return;
  }
  for (const kind of ['nodeAffinity', 'podAffinity', 'podAntiAffinity']) {
    const value = affinity[kind] as JsonObject | undefined;
    if (value === undefined) continue;
    if (Object.keys(value).length === 0) delete current[kind];
    else current[kind] = structuredClone(value);
  }
  if (Object.keys(current).length === 0) delete podSpec.affinity;
  else podSpec.affinity = current;
}

/** The object at `parent[key]`, made there when missing or not an object. */
export function objectAt(parent: JsonObject, key: string): JsonObject {
  const value = parent[key];
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as JsonObject;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

/**
 * Health of one strategy deployment against the one OLM would build now, with upstream's strategy
 * error reasons: missing, not yet observed, stuck past its progress deadline (unrecoverable),
 * rolling out, CSV annotations missing from the pod template, or a spec hash that differs from
 * the expected one (the CSV or the Subscription config changed: reinstall).
 */
export function checkDeployment(expected: BuiltDeployment, live: Deployment | undefined): InstallStatus {
  const expectedMetadata = expected.metadata;
  const name = expectedMetadata.name;
  if (!live) return { healthy: false, reason: 'ComponentMissing', message: `missing deployment with name=${name}` };
  const metadata = live.metadata ?? {};
  const spec = live.spec ?? {};
  const status = live.status ?? {};
  if (Number(metadata.generation ?? 0) > Number(status.observedGeneration ?? 0)) {
    return { healthy: false, reason: 'Waiting', message: `waiting for spec update of deployment "${name}" to be observed` };
  }
  const conditions = status.conditions ?? [];
  if (conditions.some((condition) => condition.type === 'Progressing' && condition.reason === 'ProgressDeadlineExceeded')) {
    return { healthy: false, reason: 'Timeout', unrecoverable: true, message: `deployment "${name}" exceeded its progress deadline` };
  }
  const replicas = Number(spec.replicas ?? 1);
  const updated = Number(status.updatedReplicas ?? 0);
  const total = Number(status.replicas ?? 0);
  const available = Number(status.availableReplicas ?? 0);
  if (updated < replicas) {
    return {
      healthy: false,
      reason: 'Waiting',
      message: `Waiting for rollout to finish: ${updated} out of ${replicas} new replicas have been updated...`,
    };
  }
  if (total > updated) {
    return { healthy: false, reason: 'Waiting', message: `Waiting for rollout to finish: ${total - updated} old replicas are pending termination...` };
  }
  if (available < updated || !conditions.some((condition) => condition.type === 'Available' && condition.status === 'True')) {
    return {
      healthy: false,
      reason: 'Waiting',
      message: `Waiting for rollout to finish: ${available} of ${updated} updated replicas are available...`,
    };
  }
  const liveAnnotations = spec.template?.metadata?.annotations ?? {};
  const expectedAnnotations = (objectAt(objectAt(expected.spec, 'template'), 'metadata').annotations ?? {}) as Record<string, string>;
  for (const [key, value] of Object.entries(expectedAnnotations ?? {})) {
    if (liveAnnotations[key] !== value) {
      return { healthy: false, reason: 'AnnotationsMissing', message: `annotations on deployment does not match those on csv: ${key}` };
    }
  }
  const liveHash = metadata.labels?.[deploymentSpecHashLabel];
  const expectedHash = expectedMetadata.labels[deploymentSpecHashLabel];
  if (liveHash !== expectedHash) {
    return { healthy: false, reason: 'DeploymentUpdated', message: `deployment changed old hash=${liveHash ?? ''}, new hash=${expectedHash}` };
  }
  return { healthy: true };
}
