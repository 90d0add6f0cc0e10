import { isJsonObject, type KubeObject } from '../kube-object.js';

/** A Pod whose image a test serves: the server listens on `podIP` at the ports its containers declare. */
export interface ServedPod {
  readonly namespace: string;
  readonly name: string;
  /** A loopback address of the Pod's own (`127.x.y.z`), as a Pod network gives each Pod its own IP. */
  readonly podIP: string;
  /** The Pod as stored (read-only). */
  readonly pod: KubeObject;
}

/** Starts what a container of some image would run; the Pod is Ready once it resolves and until it is deleted. */
export type PodImageServer = (pod: ServedPod) => Promise<{ stop(): Promise<void> | void }>;

export type ServingState =
  | { readonly state: 'starting' }
  | { readonly state: 'serving'; readonly podIP: string }
  | { readonly state: 'failed'; readonly podIP: string; readonly message: string };

interface Running {
  readonly uid: string;
  readonly podIP: string;
  state: ServingState;
  stop?: () => Promise<void> | void;
}

/**
 * The servers of Pods whose container (or init container) image has a registered `PodImageServer`:
 * one per Pod, started when the Pod is first seen, stopped when it goes. Each Pod gets a loopback IP
 * of its own, so servers of several Pods can listen on the same port as they would in a cluster.
 */
export class PodImageServers {
  private readonly running = new Map<string, Running>();
  private readonly usedIps = new Set<string>();

  constructor(
    private readonly servers: Readonly<Record<string, PodImageServer>>,
    /** Told when a server started or failed, so the Pod's status can be written. */
    private readonly onSettled: (key: string) => void,
  ) {}

  /** The server registered for one of the Pod's images, if any. */
  serverFor(pod: KubeObject): PodImageServer | undefined {
    const spec = isJsonObject(pod['spec']) ? pod['spec'] : {};
    const containers = [spec['initContainers'], spec['containers']].flatMap((list) => (Array.isArray(list) ? list.filter(isJsonObject) : []));
    for (const container of containers) {
      const server = typeof container['image'] === 'string' ? this.servers[container['image']] : undefined;
      if (server) return server;
    }
    return undefined;
  }

  /** Where the Pod's server is: started on first call (a Pod recreated under the same name is a new Pod). */
  state(key: string, pod: KubeObject, server: PodImageServer): ServingState {
    const uid = pod.metadata.uid ?? '';
    const current = this.running.get(key);
    if (current && current.uid === uid) return current.state;
    if (current) this.release(key);
    const podIP = this.allocateIp();
    const entry: Running = { uid, podIP, state: { state: 'starting' } };
    this.running.set(key, entry);
    const [namespace = '', name = ''] = key.split('/');
    void server({ namespace, name, podIP, pod }).then(
      (started) => {
        if (this.running.get(key) !== entry) return void started.stop();
        entry.stop = () => started.stop();
        entry.state = { state: 'serving', podIP };
        this.onSettled(key);
      },
      (error: unknown) => {
        if (this.running.get(key) !== entry) return;
        entry.state = { state: 'failed', podIP, message: error instanceof Error ? error.message : String(error) };
        this.onSettled(key);
      },
    );
    return entry.state;
  }

  /** Stops the server of a Pod that was deleted. */
  release(key: string): void {
    const entry = this.running.get(key);
    if (!entry) return;
    this.running.delete(key);
    this.usedIps.delete(entry.podIP);
    void Promise.resolve(entry.stop?.()).catch(() => undefined);
  }

  stopAll(): void {
    for (const key of [...this.running.keys()]) this.release(key);
  }

  private allocateIp(): string {
    // random, so servers of API servers in other test processes are unlikely to meet on one address
    for (;;) {
      const ip = `127.${64 + Math.floor(Math.random() * 128)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
      if (!this.usedIps.has(ip)) {
        this.usedIps.add(ip);
        return ip;
      }
    }
  }
}
