import type { Cluster } from '../cluster.js';
import { StatusError } from '../errors.js';
import { deepClone, deepEqual, isJsonObject, type JsonObject, type KubeObject } from '../kube-object.js';
import { generateNameSuffix } from '../object-names.js';
import type { ResourceType } from '../resource-type.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';
import { podTemplateHash, replicaSetName, revisionAnnotation } from './deployment-simulator.js';
import { recordEvent } from './event-recorder.js';

/**
 * Optional workload objects (`simulateWorkloadPods`): each Deployment gets a ReplicaSet
 * `<name>-<pod-template-hash>` for its current template (older ones are scaled to zero), and each
 * ReplicaSet gets `spec.replicas` Pods, all linked by controller ownerReferences so that garbage
 * collection removes them with their owner. The Pod simulator then runs the Pods. ReplicaSets carry
 * the Deployment's revision and the desired and max replicas annotations, and the scaling and pod
 * creation are recorded as kube's deployment and replicaset controllers record them (Events).
 */
const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
const deploymentResource = 'apps/deployments';
const replicaSetResource = 'apps/replicasets';
const podResource = '/pods';

function ownerReference(owner: KubeObject): JsonObject {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}

function controllerUid(object: KubeObject): string | undefined {
  return (object.metadata.ownerReferences ?? []).find((reference) => reference.controller === true)?.uid;
}

function spec(object: KubeObject): JsonObject {
  return isJsonObject(object['spec']) ? object['spec'] : {};
}

function replicasOf(object: KubeObject): number {
  const replicas = spec(object)['replicas'];
  return typeof replicas === 'number' ? replicas : 1;
}

/** replicas + maxSurge (a count, or a percentage of the replicas rounded up), as the controller computes it. */
function maxReplicas(deployment: KubeObject, replicas: number): number {
  const strategy = spec(deployment)['strategy'];
  const rollingUpdate = isJsonObject(strategy) && isJsonObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : undefined;
  const surge = rollingUpdate?.['maxSurge'];
  if (typeof surge === 'number') return replicas + surge;
  if (typeof surge === 'string' && /^\d+%$/.test(surge)) return replicas + Math.ceil((replicas * Number.parseInt(surge, 10)) / 100);
  return replicas;
}

export class ReplicaSetSimulator {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly cluster: Cluster) {
    this.queue = new WorkQueue((key) => this.reconcile(key));
  }

  start(): void {
    for (const deployment of this.cluster.store.list(deploymentResource)) this.queue.add(`${deploymentResource}|${keyOf(deployment)}`);
    for (const replicaSet of this.cluster.store.list(replicaSetResource)) this.queue.add(`${replicaSetResource}|${keyOf(replicaSet)}`);
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource === deploymentResource || event.resource === replicaSetResource) {
      if (event.type !== 'DELETED') this.queue.add(`${event.resource}|${keyOf(event.object)}`);
    }
    if (event.resource === replicaSetResource || event.resource === podResource) {
      // A ReplicaSet's or Pod's change may need its owner to catch up.
      const owner = controllerUid(event.object);
      if (!owner) return;
      const ownerResource = event.resource === podResource ? replicaSetResource : deploymentResource;
      const namespace = event.object.metadata.namespace;
      const found = this.cluster.store.list(ownerResource, namespace).find((candidate) => candidate.metadata.uid === owner);
      if (found) this.queue.add(`${ownerResource}|${keyOf(found)}`);
    }
  }

  private type(group: string, plural: string): ResourceType {
    const type = this.cluster.registry.get(group, plural);
    if (!type) throw new Error(`${plural} are not served`);
    return type;
  }

  private reconcile(key: string): void {
    const [resource, namespace = '', name = ''] = key.split('|');
    if (resource === deploymentResource) this.reconcileDeployment(namespace, name);
    else if (resource === replicaSetResource) this.reconcileReplicaSet(namespace, name);
  }

  private reconcileDeployment(namespace: string, name: string): void {
    const deployments = this.type('apps', 'deployments');
    const replicaSets = this.type('apps', 'replicasets');
    const deployment = this.cluster.tryGet(deployments, namespace, name);
    if (!deployment || deployment.metadata.deletionTimestamp !== undefined) return;
    const desiredName = replicaSetName(deployment);
    const hash = podTemplateHash(deployment);
    const replicas = replicasOf(deployment);
    const owned = this.cluster.store.list(replicaSetResource, namespace).filter((replicaSet) => controllerUid(replicaSet) === deployment.metadata.uid);
    for (const replicaSet of owned) {
      const current = replicasOf(replicaSet);
      if (replicaSet.metadata.name !== desiredName && current !== 0) {
        this.cluster.patch(replicaSets, 'v1', namespace, replicaSet.metadata.name ?? '', 'merge', { spec: { replicas: 0 } }, { fieldManager: 'kube-controller-manager' });
        this.scaled(deployment, replicaSet, current, 0);
      }
    }
    const template = deepClone(isJsonObject(spec(deployment)['template']) ? (spec(deployment)['template'] as JsonObject) : {});
    const templateMetadata = isJsonObject(template['metadata']) ? template['metadata'] : {};
    const labels = { ...(isJsonObject(templateMetadata['labels']) ? (templateMetadata['labels'] as Record<string, string>) : {}), 'pod-template-hash': hash };
    template['metadata'] = { ...templateMetadata, labels };
    const selector = isJsonObject(spec(deployment)['selector']) ? deepClone(spec(deployment)['selector'] as JsonObject) : {};
    selector['matchLabels'] = { ...(isJsonObject(selector['matchLabels']) ? selector['matchLabels'] : {}), 'pod-template-hash': hash };
    const annotations = {
      [desiredReplicasAnnotation]: String(replicas),
      [maxReplicasAnnotation]: String(maxReplicas(deployment, replicas)),
      // The Deployment simulator sets the revision; until it has, the first rollout is revision 1.
      [revisionAnnotation]: deployment.metadata.annotations?.[revisionAnnotation] ?? '1',
    };
    const existing = owned.find((replicaSet) => replicaSet.metadata.name === desiredName);
    if (!existing) {
      try {
        const created = this.cluster.create(replicaSets, 'v1', namespace, {
          metadata: { name: desiredName, labels, annotations, ownerReferences: [ownerReference(deployment)] },
          spec: { replicas, selector, template },
        }, { fieldManager: 'kube-controller-manager' });
        this.scaled(deployment, created, 0, replicas);
      } catch (error) {
        if (!(error instanceof StatusError && error.code === 409)) throw error;
      }
      return;
    }
    const current = replicasOf(existing);
    const staleAnnotations = Object.entries(annotations).some(([key, value]) => existing.metadata.annotations?.[key] !== value);
    if (current === replicas && !staleAnnotations) return;
    this.cluster.patch(replicaSets, 'v1', namespace, desiredName, 'merge', { metadata: { annotations }, spec: { replicas } }, { fieldManager: 'kube-controller-manager' });
    if (current !== replicas) this.scaled(deployment, existing, current, replicas);
  }

  /** The deployment controller's `ScalingReplicaSet` event on the Deployment. */
  private scaled(deployment: KubeObject, replicaSet: KubeObject, from: number, to: number): void {
    if (from === to) return;
    const direction = to > from ? 'up' : 'down';
    recordEvent(this.cluster, {
      involved: deployment,
      reason: 'ScalingReplicaSet',
      message: `Scaled ${direction} replica set ${replicaSet.metadata.name ?? ''} from ${from} to ${to}`,
      component: 'deployment-controller',
    });
  }

  private reconcileReplicaSet(namespace: string, name: string): void {
    const replicaSets = this.type('apps', 'replicasets');
    const pods = this.type('', 'pods');
    const replicaSet = this.cluster.tryGet(replicaSets, namespace, name);
    if (!replicaSet || replicaSet.metadata.deletionTimestamp !== undefined) return;
    const replicaSetSpec = spec(replicaSet);
    const replicas = replicasOf(replicaSet);
    const owned = this.cluster.store
      .list(podResource, namespace)
      .filter((pod) => controllerUid(pod) === replicaSet.metadata.uid && pod.metadata.deletionTimestamp === undefined);
    const template = isJsonObject(replicaSetSpec['template']) ? replicaSetSpec['template'] : {};
    for (let count = owned.length; count < replicas; count++) {
      const templateMetadata = isJsonObject(template['metadata']) ? template['metadata'] : {};
      const pod = this.cluster.create(pods, 'v1', namespace, {
        metadata: { ...deepClone(templateMetadata), name: `${name}-${generateNameSuffix()}`, generateName: `${name}-`, ownerReferences: [ownerReference(replicaSet)] },
        spec: deepClone(isJsonObject(template['spec']) ? template['spec'] : {}),
      }, { fieldManager: 'kube-controller-manager' });
      recordEvent(this.cluster, { involved: replicaSet, reason: 'SuccessfulCreate', message: `Created pod: ${pod.metadata.name ?? ''}`, component: 'replicaset-controller' });
    }
    for (const pod of owned.slice(replicas)) {
      this.cluster.delete(pods, namespace, pod.metadata.name ?? '');
      recordEvent(this.cluster, { involved: replicaSet, reason: 'SuccessfulDelete', message: `Deleted pod: ${pod.metadata.name ?? ''}`, component: 'replicaset-controller' });
    }
    const current = this.cluster.store.list(podResource, namespace).filter((pod) => controllerUid(pod) === replicaSet.metadata.uid && pod.metadata.deletionTimestamp === undefined);
    const ready = current.filter((pod) => {
      const conditions = isJsonObject(pod['status']) && Array.isArray(pod['status']['conditions']) ? (pod['status']['conditions'] as JsonObject[]) : [];
      return conditions.some((condition) => condition['type'] === 'Ready' && condition['status'] === 'True');
    }).length;
    const status: JsonObject = { replicas: current.length, observedGeneration: replicaSet.metadata.generation ?? 1 };
    if (current.length > 0) status['fullyLabeledReplicas'] = current.length;
    if (ready > 0) {
      status['readyReplicas'] = ready;
      status['availableReplicas'] = ready;
    }
    if (deepEqual(status, replicaSet['status'])) return;
    this.cluster.update(replicaSets, 'v1', namespace, name, { ...replicaSet, status }, { subresource: 'status', fieldManager: 'kube-controller-manager' });
  }
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}|${object.metadata.name ?? ''}`;
}
