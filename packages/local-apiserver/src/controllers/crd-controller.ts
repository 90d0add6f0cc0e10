import type { Cluster } from '../cluster.js';
import { crdSpec, resourceTypeFromCrd } from '../crd-types.js';
import { deepEqual, isJsonObject, nowTimestamp, type JsonObject, type KubeObject } from '../kube-object.js';
import { resourceKey } from '../resource-type.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';

/**
 * CustomResourceDefinitions: serves a CRD's resources as soon as it is stored, writes its status
 * (acceptedNames, NamesAccepted, Established; `storedVersions` is the write strategy's, see
 * `crd-stored-versions.ts`), and on deletion removes every custom
 * resource before it drops the `customresourcecleanup.apiextensions.k8s.io` finalizer.
 */
export const crdCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';
const crdResource = 'apiextensions.k8s.io/customresourcedefinitions';

export class CrdController {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly cluster: Cluster) {
    this.queue = new WorkQueue((name) => this.reconcile(name));
  }

  start(): void {
    for (const crd of this.cluster.store.list(crdResource)) {
      this.register(crd);
      this.queue.add(crd.metadata.name ?? '');
    }
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private crdType() {
    const type = this.cluster.registry.get('apiextensions.k8s.io', 'customresourcedefinitions');
    if (!type) throw new Error('the CustomResourceDefinition type is not registered');
    return type;
  }

  private register(crd: KubeObject): void {
    try {
      this.cluster.registry.add(resourceTypeFromCrd(crd));
    } catch {
      // A schema that cannot be compiled was refused at admission; nothing to serve.
    }
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource === crdResource) {
      const name = event.object.metadata.name ?? '';
      if (event.type === 'DELETED') {
        const spec = crdSpec(event.object);
        this.cluster.registry.remove(spec.group, spec.names.plural);
        return;
      }
      // Serve at once (synchronously with the dispatch of the write), so a CR can be created right after.
      if (event.object.metadata.deletionTimestamp === undefined) this.register(event.object);
      this.queue.add(name);
      return;
    }
    if (event.type === 'DELETED') {
      const type = this.cluster.registry.all().find((candidate) => resourceKey(candidate) === event.resource);
      if (type?.crdName !== undefined) this.queue.add(type.crdName);
    }
  }

  private reconcile(name: string): void {
    const type = this.crdType();
    const crd = this.cluster.tryGet(type, undefined, name);
    if (!crd) return;
    if (crd.metadata.deletionTimestamp !== undefined) {
      this.cleanUp(crd);
      return;
    }
    const spec = crdSpec(crd);
    const status: JsonObject = isJsonObject(crd['status']) ? { ...crd['status'] } : {};
    const acceptedNames: JsonObject = {
      plural: spec.names.plural,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
      kind: spec.names.kind,
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
    };
    if (spec.names.shortNames) acceptedNames['shortNames'] = spec.names.shortNames;
    if (spec.names.categories) acceptedNames['categories'] = spec.names.categories;
    const conditions = mergeConditions(status['conditions'], [
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ]);
    const next = { ...status, conditions, acceptedNames };
    if (deepEqual(next, crd['status'])) return;
    this.cluster.update(type, 'v1', undefined, name, { ...crd, status: next }, { subresource: 'status', fieldManager: 'kube-apiserver' });
  }

  private cleanUp(crd: KubeObject): void {
    const type = this.crdType();
    const spec = crdSpec(crd);
    const name = crd.metadata.name ?? '';
    const status: JsonObject = isJsonObject(crd['status']) ? { ...crd['status'] } : {};
    const conditions = mergeConditions(status['conditions'], [
      { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' },
    ]);
    if (!deepEqual(conditions, status['conditions'])) {
      this.cluster.update(type, 'v1', undefined, name, { ...crd, status: { ...status, conditions } }, { subresource: 'status', fieldManager: 'kube-apiserver' });
    }
    const customType = this.cluster.registry.get(spec.group, spec.names.plural);
    if (customType) {
      const remaining = this.cluster.store.list(resourceKey(customType));
      for (const object of remaining) {
        if (object.metadata.deletionTimestamp === undefined) this.cluster.delete(customType, object.metadata.namespace, object.metadata.name ?? '');
      }
      if (this.cluster.store.count(resourceKey(customType)) > 0) return;
      this.cluster.registry.remove(spec.group, spec.names.plural);
    }
    const current = this.cluster.tryGet(type, undefined, name);
    if (!current) return;
    const finalizers = (current.metadata.finalizers ?? []).filter((finalizer) => finalizer !== crdCleanupFinalizer);
    this.cluster.update(type, 'v1', undefined, name, { ...current, metadata: { ...current.metadata, finalizers } }, { fieldManager: 'kube-apiserver' });
  }
}

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** Sets conditions, keeping `lastTransitionTime` when the status did not change. */
export function mergeConditions(existing: unknown, updates: readonly Condition[]): JsonObject[] {
  const current = Array.isArray(existing) ? (existing.filter(isJsonObject) as JsonObject[]) : [];
  const out = current.map((condition) => ({ ...condition }));
  for (const update of updates) {
    const index = out.findIndex((condition) => condition['type'] === update.type);
    const previous = index >= 0 ? out[index] : undefined;
    const lastTransitionTime = previous && previous['status'] === update.status ? (previous['lastTransitionTime'] as string) : nowTimestamp();
    const next: JsonObject = { type: update.type, status: update.status, lastTransitionTime, reason: update.reason, message: update.message };
    if (index >= 0) out[index] = next;
    else out.push(next);
  }
  return out;
}
