import type { Cluster } from '../cluster.js';
import { StatusError } from '../errors.js';
import type { KubeObject, OwnerReference } from '../kube-object.js';
import type { ResourceType } from '../resource-type.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';

/**
 * The garbage collector: ownerReferences by uid. Background: a dependent whose owners are all gone is
 * deleted. Foreground: an owner holding `foregroundDeletion` has its dependents deleted and keeps the
 * finalizer until no `blockOwnerDeletion` dependent is left. Orphan: the `orphan` finalizer strips the
 * owner's references from its dependents.
 */
interface Location {
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly name: string;
}

function encode(location: Location): string {
  return `${location.resource}|${location.namespace ?? ''}|${location.name}`;
}

function decode(key: string): Location {
  const [resource = '', namespace = '', name = ''] = key.split('|');
  return { resource, namespace: namespace === '' ? undefined : namespace, name };
}

function locationOf(resource: string, object: KubeObject): Location {
  return { resource, namespace: object.metadata.namespace, name: object.metadata.name ?? '' };
}

export class GarbageCollector {
  private readonly byUid = new Map<string, string>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly cluster: Cluster) {
    this.queue = new WorkQueue((key) => this.process(key));
  }

  start(): void {
    for (const { resource, object } of this.cluster.store.allObjects()) {
      this.index(resource, object, undefined);
      if ((object.metadata.ownerReferences ?? []).length > 0 || object.metadata.deletionTimestamp !== undefined) {
        this.queue.add(encode(locationOf(resource, object)));
      }
    }
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private index(resource: string, object: KubeObject | undefined, previous: KubeObject | undefined): void {
    if (previous) {
      const key = encode(locationOf(resource, previous));
      for (const owner of previous.metadata.ownerReferences ?? []) this.dependents.get(owner.uid)?.delete(key);
    }
    if (object) {
      const key = encode(locationOf(resource, object));
      if (object.metadata.uid) this.byUid.set(object.metadata.uid, key);
      for (const owner of object.metadata.ownerReferences ?? []) {
        let set = this.dependents.get(owner.uid);
        if (!set) {
          set = new Set();
          this.dependents.set(owner.uid, set);
        }
        set.add(key);
      }
    }
  }

  private onEvent(event: StoreEvent): void {
    const { object, previous, resource } = event;
    const key = encode(locationOf(resource, object));
    if (event.type === 'DELETED') {
      this.index(resource, undefined, object);
      const uid = object.metadata.uid;
      if (uid) {
        this.byUid.delete(uid);
        for (const dependent of this.dependents.get(uid) ?? []) this.queue.add(dependent);
      }
      // An owner waiting in foreground deletion may now be free to go.
      for (const owner of object.metadata.ownerReferences ?? []) {
        const ownerKey = this.byUid.get(owner.uid);
        if (ownerKey) this.queue.add(ownerKey);
      }
      return;
    }
    this.index(resource, object, previous);
    if ((object.metadata.ownerReferences ?? []).length > 0) this.queue.add(key);
    const finalizers = object.metadata.finalizers ?? [];
    if (object.metadata.deletionTimestamp !== undefined && (finalizers.includes('foregroundDeletion') || finalizers.includes('orphan'))) this.queue.add(key);
  }

  private typeOf(resource: string): ResourceType | undefined {
    const [group = '', plural = ''] = resource.split('/');
    return this.cluster.registry.get(group, plural);
  }

  private read(location: Location): { type: ResourceType; object: KubeObject } | undefined {
    const type = this.typeOf(location.resource);
    const object = type ? this.cluster.tryGet(type, location.namespace, location.name) : undefined;
    return type && object ? { type, object } : undefined;
  }

  private ownerState(owner: OwnerReference): 'absent' | 'present' | 'foreground' {
    const key = this.byUid.get(owner.uid);
    if (!key) return 'absent';
    const found = this.read(decode(key));
    if (!found || found.object.metadata.uid !== owner.uid) return 'absent';
    const finalizers = found.object.metadata.finalizers ?? [];
    return found.object.metadata.deletionTimestamp !== undefined && finalizers.includes('foregroundDeletion') ? 'foreground' : 'present';
  }

  private process(key: string): void {
    const found = this.read(decode(key));
    if (!found) return;
    const { type, object } = found;
    const finalizers = object.metadata.finalizers ?? [];
    if (object.metadata.deletionTimestamp !== undefined) {
      if (finalizers.includes('orphan')) this.orphanDependents(type, object);
      else if (finalizers.includes('foregroundDeletion')) this.deleteDependentsInForeground(type, object);
      return;
    }
    const owners = object.metadata.ownerReferences ?? [];
    if (owners.length === 0) return;
    const states = owners.map((owner) => ({ owner, state: this.ownerState(owner) }));
    const solid = states.filter(({ state }) => state === 'present');
    const dangling = states.filter(({ state }) => state === 'absent');
    const waiting = states.filter(({ state }) => state === 'foreground');
    if (solid.length > 0) {
      if (dangling.length === 0) return;
      // Live owners remain: only drop the references to owners that are gone.
      const kept = owners.filter((owner) => !dangling.some(({ owner: gone }) => gone.uid === owner.uid));
      this.cluster.patch(type, type.storageVersion, object.metadata.namespace, object.metadata.name ?? '', 'merge', { metadata: { ownerReferences: kept, resourceVersion: object.metadata.resourceVersion } }, { fieldManager: 'generic-garbage-collector' });
      return;
    }
    const hasDependents = (this.dependents.get(object.metadata.uid ?? '')?.size ?? 0) > 0;
    const policy = waiting.length > 0 && hasDependents ? 'Foreground' : 'Background';
    this.deleteQuietly(type, object, policy);
  }

  private deleteQuietly(type: ResourceType, object: KubeObject, policy: 'Background' | 'Foreground'): void {
    try {
      this.cluster.delete(type, object.metadata.namespace, object.metadata.name ?? '', { propagationPolicy: policy, preconditions: { uid: object.metadata.uid ?? '' } });
    } catch (error) {
      if (!(error instanceof StatusError && (error.code === 404 || error.code === 409))) throw error;
    }
  }

  private liveDependents(owner: KubeObject): { type: ResourceType; object: KubeObject }[] {
    const out: { type: ResourceType; object: KubeObject }[] = [];
    for (const key of this.dependents.get(owner.metadata.uid ?? '') ?? []) {
      const found = this.read(decode(key));
      if (found && (found.object.metadata.ownerReferences ?? []).some((ref) => ref.uid === owner.metadata.uid)) out.push(found);
    }
    return out;
  }

  private deleteDependentsInForeground(type: ResourceType, owner: KubeObject): void {
    const dependents = this.liveDependents(owner);
    for (const dependent of dependents) {
      if (dependent.object.metadata.deletionTimestamp === undefined) {
        const hasOwnDependents = (this.dependents.get(dependent.object.metadata.uid ?? '')?.size ?? 0) > 0;
        this.deleteQuietly(dependent.type, dependent.object, hasOwnDependents ? 'Foreground' : 'Background');
      }
    }
    const blocking = this.liveDependents(owner).filter(({ object }) => (object.metadata.ownerReferences ?? []).some((ref) => ref.uid === owner.metadata.uid && ref.blockOwnerDeletion === true));
    if (blocking.length > 0) return;
    this.removeFinalizer(type, owner, 'foregroundDeletion');
  }

  private orphanDependents(type: ResourceType, owner: KubeObject): void {
    for (const dependent of this.liveDependents(owner)) {
      const kept = (dependent.object.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== owner.metadata.uid);
      this.cluster.patch(
        dependent.type,
        dependent.type.storageVersion,
        dependent.object.metadata.namespace,
        dependent.object.metadata.name ?? '',
        'merge',
        { metadata: { ownerReferences: kept.length > 0 ? kept : null, resourceVersion: dependent.object.metadata.resourceVersion } },
        { fieldManager: 'generic-garbage-collector' },
      );
    }
    this.removeFinalizer(type, owner, 'orphan');
  }

  private removeFinalizer(type: ResourceType, owner: KubeObject, finalizer: string): void {
    const current = this.cluster.tryGet(type, owner.metadata.namespace, owner.metadata.name ?? '');
    if (!current || current.metadata.uid !== owner.metadata.uid) return;
    const finalizers = (current.metadata.finalizers ?? []).filter((item) => item !== finalizer);
    this.cluster.patch(type, type.storageVersion, current.metadata.namespace, current.metadata.name ?? '', 'merge', { metadata: { finalizers: finalizers.length > 0 ? finalizers : null, resourceVersion: current.metadata.resourceVersion } }, { fieldManager: 'generic-garbage-collector' });
  }
}

