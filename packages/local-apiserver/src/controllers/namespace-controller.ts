import type { Cluster } from '../cluster.js';
import { ApiError } from '../errors.js';
import { resourceKey } from '../resource-type.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';

/**
 * Namespace lifecycle: a namespace being deleted (phase Terminating) has its contents deleted;
 * once it is empty its `kubernetes` finalizer is dropped and it goes away.
 */
const namespaceResource = '/namespaces';

export class NamespaceController {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly cluster: Cluster) {
    this.queue = new WorkQueue((name) => this.reconcile(name));
  }

  start(): void {
    for (const namespace of this.cluster.store.list(namespaceResource)) {
      if (namespace.metadata.deletionTimestamp !== undefined) this.queue.add(namespace.metadata.name ?? '');
    }
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource === namespaceResource) {
      if (event.type !== 'DELETED' && event.object.metadata.deletionTimestamp !== undefined) this.queue.add(event.object.metadata.name ?? '');
      return;
    }
    const namespace = event.object.metadata.namespace;
    if (event.type === 'DELETED' && namespace !== undefined) {
      const owner = this.cluster.store.get(namespaceResource, undefined, namespace);
      if (owner?.metadata.deletionTimestamp !== undefined) this.queue.add(namespace);
    }
  }

  private reconcile(name: string): void {
    const namespaceType = this.cluster.registry.get('', 'namespaces');
    if (!namespaceType) return;
    const namespace = this.cluster.tryGet(namespaceType, undefined, name);
    if (!namespace || namespace.metadata.deletionTimestamp === undefined) return;
    let remaining = 0;
    for (const type of this.cluster.registry.all()) {
      if (!type.namespaced) continue;
      for (const object of this.cluster.store.list(resourceKey(type), name)) {
        remaining++;
        if (object.metadata.deletionTimestamp !== undefined) continue;
        try {
          this.cluster.delete(type, name, object.metadata.name ?? '', { propagationPolicy: 'Background' });
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 404)) throw error;
        }
      }
    }
    if (remaining > 0) {
      // Objects deleted at once fire DELETED events that requeue us; finalizer-held ones do so when released.
      return;
    }
    const current = this.cluster.tryGet(namespaceType, undefined, name);
    if (!current) return;
    // Dropping the `kubernetes` finalizer removes the namespace unless metadata.finalizers still hold it.
    this.cluster.update(namespaceType, 'v1', undefined, name, { ...current, spec: { finalizers: [] } }, { subresource: 'finalize', fieldManager: 'kube-controller-manager' });
  }
}
