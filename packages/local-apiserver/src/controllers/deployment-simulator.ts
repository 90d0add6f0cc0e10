import { createHash } from 'node:crypto';
import type { Cluster } from '../cluster.js';
import { deepEqual, isJsonObject, type JsonObject, type KubeObject } from '../kube-object.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';
import { mergeConditions, type Condition } from './crd-controller.js';

/**
 * "kwok-lite": with no controller-manager or kubelet, Deployments would never roll out. This writes
 * the status a healthy rollout ends with (all replicas updated, ready and available, Available and
 * Progressing true) after a delay, or a failed one (Progressing=False, ProgressDeadlineExceeded) when
 * the Deployment carries `olm.local-apiserver/fail: "true"` or `failDeployment()` was called.
 */
export const failAnnotation = 'olm.local-apiserver/fail';
/** The rollout revision kube's deployment controller keeps on a Deployment and its ReplicaSets. */
export const revisionAnnotation = 'deployment.kubernetes.io/revision';
const deploymentResource = 'apps/deployments';

export class DeploymentSimulator {
  private readonly queue: WorkQueue;
  private readonly failed = new Set<string>();
  /** When each Deployment generation was first seen, to hold "ready" back for the rollout delay. */
  private readonly seen = new Map<string, { generation: number; at: number }>();
  /** The pod template hash each Deployment was last rolled out with, and its revision. */
  private readonly revisions = new Map<string, { hash: string; revision: number }>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly rolloutDelayMs: number,
  ) {
    this.queue = new WorkQueue((key) => this.reconcile(key));
  }

  start(): void {
    for (const deployment of this.cluster.store.list(deploymentResource)) this.queue.add(keyOf(deployment));
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  setFailed(namespace: string, name: string, failed: boolean): void {
    const key = `${namespace}/${name}`;
    if (failed) this.failed.add(key);
    else this.failed.delete(key);
    this.queue.add(key);
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource !== deploymentResource) return;
    const key = keyOf(event.object);
    if (event.type === 'DELETED') {
      this.seen.delete(key);
      this.revisions.delete(key);
      return;
    }
    this.queue.add(key);
  }

  private revisionOf(key: string, deployment: KubeObject): string {
    const hash = podTemplateHash(deployment);
    const current = Number(deployment.metadata.annotations?.[revisionAnnotation] ?? 0);
    const revision = nextRevision(this.revisions.get(key), hash, Number.isInteger(current) ? current : 0);
    this.revisions.set(key, { hash, revision });
    return String(revision);
  }

  private reconcile(key: string): void {
    const type = this.cluster.registry.get('apps', 'deployments');
    const [namespace = '', name = ''] = key.split('/');
    let deployment = type ? this.cluster.tryGet(type, namespace, name) : undefined;
    if (!type || !deployment || deployment.metadata.deletionTimestamp !== undefined) return;
    const revision = this.revisionOf(key, deployment);
    if (deployment.metadata.annotations?.[revisionAnnotation] !== revision) {
      deployment = this.cluster.patch(type, 'v1', namespace, name, 'merge', { metadata: { annotations: { [revisionAnnotation]: revision } } }, { fieldManager: 'kube-controller-manager' });
    }
    const generation = deployment.metadata.generation ?? 1;
    const now = Date.now();
    let seen = this.seen.get(key);
    if (!seen || seen.generation !== generation) {
      seen = { generation, at: now };
      this.seen.set(key, seen);
    }
    const failing = this.failed.has(key) || deployment.metadata.annotations?.[failAnnotation] === 'true';
    const waited = now - seen.at;
    const rolledOut = !failing && waited >= this.rolloutDelayMs;
    const status = failing ? failedStatus(deployment) : rolledOut ? readyStatus(deployment) : progressingStatus(deployment);
    if (!rolledOut && !failing) this.queue.addAfter(key, Math.max(1, this.rolloutDelayMs - waited));
    const current = isJsonObject(deployment['status']) ? deployment['status'] : {};
    if (deepEqual(withoutTimes(status), withoutTimes(current))) return;
    this.cluster.update(type, 'v1', namespace, name, { ...deployment, status }, { subresource: 'status', fieldManager: 'kube-controller-manager' });
  }
}

/** A new pod template is a new revision, one past the last; the first template is revision 1. */
function nextRevision(known: { hash: string; revision: number } | undefined, hash: string, current: number): number {
  if (!known) return current > 0 ? current : 1;
  return known.hash === hash ? Math.max(known.revision, current) : Math.max(known.revision, current) + 1;
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

function replicasOf(deployment: KubeObject): number {
  const spec = deployment['spec'];
  const replicas = isJsonObject(spec) ? spec['replicas'] : undefined;
  return typeof replicas === 'number' ? replicas : 1;
}

/** The `pod-template-hash` of a Deployment's current template (ten characters of kube's alphabet). */
export function podTemplateHash(deployment: KubeObject): string {
  const spec = deployment['spec'];
  const template = isJsonObject(spec) ? spec['template'] : undefined;
  const digest = createHash('sha256').update(JSON.stringify(template ?? {})).digest();
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let hash = '';
  for (let index = 0; index < 10; index++) hash += alphabet[(digest[index] ?? 0) % alphabet.length];
  return hash;
}

/** The ReplicaSet name a rollout of this template would create (`<name>-<pod-template-hash>`). */
export function replicaSetName(deployment: KubeObject): string {
  return `${deployment.metadata.name ?? ''}-${podTemplateHash(deployment)}`;
}

function withConditions(deployment: KubeObject, base: JsonObject, conditions: Condition[]): JsonObject {
  const current = isJsonObject(deployment['status']) ? deployment['status']['conditions'] : undefined;
  const merged: JsonObject[] = mergeConditions(current, conditions).map((condition) => ({ ...condition, lastUpdateTime: condition['lastTransitionTime'] }));
  const ordered = ['Available', 'Progressing'].map((type) => merged.find((condition) => condition['type'] === type)).filter((condition) => condition !== undefined);
  return { ...base, conditions: ordered };
}

function counts(fields: Record<string, number>): JsonObject {
  const out: JsonObject = {};
  for (const [field, value] of Object.entries(fields)) if (value !== 0) out[field] = value;
  return out;
}

function readyStatus(deployment: KubeObject): JsonObject {
  const replicas = replicasOf(deployment);
  return withConditions(
    deployment,
    { observedGeneration: deployment.metadata.generation ?? 1, ...counts({ replicas, updatedReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas }) },
    [
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
      { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${replicaSetName(deployment)}" has successfully progressed.` },
    ],
  );
}

function progressingStatus(deployment: KubeObject): JsonObject {
  const replicas = replicasOf(deployment);
  return withConditions(
    deployment,
    { observedGeneration: deployment.metadata.generation ?? 1, ...counts({ replicas, updatedReplicas: replicas, unavailableReplicas: replicas }) },
    [
      { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
      { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${replicaSetName(deployment)}" is progressing.` },
    ],
  );
}

function failedStatus(deployment: KubeObject): JsonObject {
  const replicas = replicasOf(deployment);
  return withConditions(
    deployment,
    { observedGeneration: deployment.metadata.generation ?? 1, ...counts({ replicas, updatedReplicas: replicas, unavailableReplicas: replicas }) },
    [
      { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
      { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${replicaSetName(deployment)}" has timed out progressing.` },
    ],
  );
}

function withoutTimes(status: JsonObject): JsonObject {
  const conditions = Array.isArray(status['conditions'])
    ? status['conditions'].map((condition) => {
        const copy = { ...(condition as JsonObject) };
        delete copy['lastTransitionTime'];
        delete copy['lastUpdateTime'];
        return copy;
      })
    : undefined;
  return { ...status, conditions };
}
