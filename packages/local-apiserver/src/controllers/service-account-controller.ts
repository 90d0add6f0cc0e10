import type { Cluster } from '../cluster.js';
import { StatusError } from '../errors.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';

const namespaceResource = '/namespaces';
const serviceAccountResource = '/serviceaccounts';
const defaultName = 'default';

/**
 * kube-controller-manager's service account controller: every active namespace has a `default`
 * ServiceAccount, made when the namespace appears and made again if someone deletes it. Pods and
 * operators that name no service account (or name `default`) rely on it existing.
 */
export class ServiceAccountController {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly cluster: Cluster) {
    this.queue = new WorkQueue((namespace) => this.reconcile(namespace));
  }

  start(): void {
    for (const namespace of this.cluster.store.list(namespaceResource)) this.queue.add(namespace.metadata.name ?? '');
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource === namespaceResource && event.type === 'ADDED') this.queue.add(event.object.metadata.name ?? '');
    else if (event.resource === serviceAccountResource && event.type === 'DELETED' && event.object.metadata.name === defaultName) {
      this.queue.add(event.object.metadata.namespace ?? '');
    }
  }

  private reconcile(name: string): void {
    const namespaceType = this.cluster.registry.get('', 'namespaces');
    const serviceAccountType = this.cluster.registry.get('', 'serviceaccounts');
    if (!namespaceType || !serviceAccountType) return;
    const namespace = this.cluster.tryGet(namespaceType, undefined, name);
    // A terminating namespace accepts no new objects, and its contents are going anyway.
    if (!namespace || namespace.metadata.deletionTimestamp !== undefined) return;
    if (this.cluster.tryGet(serviceAccountType, name, defaultName)) return;
    try {
      this.cluster.create(serviceAccountType, 'v1', name, { metadata: { name: defaultName } }, { fieldManager: 'kube-controller-manager' });
    } catch (error) {
      if (!(error instanceof StatusError && error.code === 409)) throw error;
    }
  }
}
