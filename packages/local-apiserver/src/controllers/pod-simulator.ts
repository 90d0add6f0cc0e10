import type { Cluster } from '../cluster.js';
import { deepEqual, isJsonObject, nowTimestamp, type JsonObject, type KubeObject } from '../kube-object.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';
import { failAnnotation } from './deployment-simulator.js';
import { PodImageServers, type PodImageServer } from './pod-image-servers.js';

/**
 * "kwok-lite" for Pods: with no kubelet, a Pod would stay Pending forever. After the rollout delay it
 * becomes Running with every container ready (conditions PodScheduled, Initialized, ContainersReady,
 * Ready), or, with `olm.local-apiserver/fail: "true"`, Running with its containers in CrashLoopBackOff.
 * A Pod whose image has a registered server gets a loopback IP of its own and becomes Ready once that
 * server runs (not ready, with the server's error, if it fails to start); the server stops with the Pod.
 */
const podResource = '/pods';

export class PodSimulator {
  private readonly queue: WorkQueue;
  private readonly firstSeen = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;
  private nextIp = 2;
  private readonly servers: PodImageServers;

  constructor(
    private readonly cluster: Cluster,
    private readonly startDelayMs: number,
    imageServers: Readonly<Record<string, PodImageServer>> = {},
  ) {
    this.queue = new WorkQueue((key) => this.reconcile(key));
    this.servers = new PodImageServers(imageServers, (key) => this.queue.add(key));
  }

  start(): void {
    for (const pod of this.cluster.store.list(podResource)) this.queue.add(keyOf(pod));
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
    this.servers.stopAll();
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource !== podResource) return;
    const key = keyOf(event.object);
    if (event.type === 'DELETED') {
      this.firstSeen.delete(key);
      this.servers.release(key);
    } else this.queue.add(key);
  }

  private reconcile(key: string): void {
    const type = this.cluster.registry.get('', 'pods');
    const [namespace = '', name = ''] = key.split('/');
    const pod = type ? this.cluster.tryGet(type, namespace, name) : undefined;
    if (!type || !pod || pod.metadata.deletionTimestamp !== undefined) return;
    const now = Date.now();
    const seen = this.firstSeen.get(key) ?? now;
    this.firstSeen.set(key, seen);
    if (now - seen < this.startDelayMs) {
      this.queue.addAfter(key, this.startDelayMs - (now - seen));
      return;
    }
    const current = isJsonObject(pod['status']) ? pod['status'] : {};
    let failing: string | undefined = pod.metadata.annotations?.[failAnnotation] === 'true' ? 'back-off restarting failed container (simulated by local-apiserver)' : undefined;
    let podIP: string | undefined;
    const server = this.servers.serverFor(pod);
    if (server) {
      const serving = this.servers.state(key, pod, server);
      if (serving.state === 'starting') return; // Pending until the server runs
      podIP = serving.podIP;
      if (serving.state === 'failed') failing = serving.message;
    }
    const status = this.runningStatus(pod, current, failing, podIP);
    if (deepEqual(status, current)) return;
    this.cluster.update(type, 'v1', namespace, name, { ...pod, status }, { subresource: 'status', fieldManager: 'kubelet' });
  }

  private runningStatus(pod: KubeObject, current: JsonObject, failure: string | undefined, servedIp: string | undefined): JsonObject {
    const failing = failure !== undefined;
    const spec = isJsonObject(pod['spec']) ? pod['spec'] : {};
    const containers = Array.isArray(spec['containers']) ? spec['containers'].filter(isJsonObject) : [];
    const startTime = typeof current['startTime'] === 'string' ? current['startTime'] : nowTimestamp();
    const previousConditions = Array.isArray(current['conditions']) ? (current['conditions'] as JsonObject[]) : [];
    const condition = (type: string, ready: boolean): JsonObject => {
      const status = ready ? 'True' : 'False';
      const previous = previousConditions.find((entry) => entry['type'] === type);
      const lastTransitionTime = previous && previous['status'] === status ? previous['lastTransitionTime'] : startTime;
      return failing && !ready
        ? { type, status, lastProbeTime: null, lastTransitionTime, reason: 'ContainersNotReady', message: `containers with unready status: [${containers.map((c) => String(c['name'])).join(' ')}]` }
        : { type, status, lastProbeTime: null, lastTransitionTime };
    };
    const podIP = servedIp ?? (typeof current['podIP'] === 'string' ? current['podIP'] : `10.244.0.${(this.nextIp++ % 250) + 2}`);
    return {
      phase: 'Running',
      conditions: [condition('PodReadyToStartContainers', true), condition('Initialized', true), condition('Ready', !failing), condition('ContainersReady', !failing), condition('PodScheduled', true)],
      hostIP: '10.0.0.1',
      podIP,
      podIPs: [{ ip: podIP }],
      startTime,
      containerStatuses: containers.map((container) => ({
        name: container['name'],
        state: failing ? { waiting: { reason: 'CrashLoopBackOff', message: failure } } : { running: { startedAt: startTime } },
        lastState: {},
        ready: !failing,
        restartCount: failing ? 1 : 0,
        image: container['image'],
        imageID: '',
        started: !failing,
      })),
      // Set on create from the containers' resources (see pod-spec-defaults.ts).
      qosClass: typeof current['qosClass'] === 'string' ? current['qosClass'] : 'BestEffort',
    };
  }
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}
