import type { Cluster } from '../cluster.js';
import { StatusError } from '../errors.js';
import { isJsonObject, nowTimestamp, type JsonObject, type KubeObject } from '../kube-object.js';
import { resourceKey } from '../resource-type.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';

/**
 * kube-controller-manager's namespace controller: a namespace being deleted (phase Terminating) has
 * its contents deleted; its status conditions say what is left (kube's types, reasons and messages:
 * resources remaining, finalizers holding them, aggregated APIs that cannot be discovered, deletions
 * that failed); once nothing is left it removes its `kubernetes` finalizer through the `finalize`
 * subresource, and the namespace goes when `metadata.finalizers` are empty too.
 */
const namespaceResource = '/namespaces';
const apiServiceResource = 'apiregistration.k8s.io/apiservices';
const namespaceFinalizer = 'kubernetes';
/** How soon a namespace blocked by discovery or deletion errors is looked at again. */
const retryMs = 1_000;

interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** The condition types the controller maintains, in the order it adds them, with their "ok" reason and message. */
const conditionTypes: ReadonlyArray<[type: string, reason: string, message: string]> = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

interface DeletionOutcome {
  /** `<group>/<version>: <error>` of aggregated APIs that cannot be discovered. */
  readonly undiscoverable: readonly string[];
  /** One message per resource whose contents could not be deleted. */
  readonly deleteErrors: readonly string[];
  /** `<plural>.<group>` → objects left. */
  readonly remaining: ReadonlyMap<string, number>;
  /** finalizer → objects it holds. */
  readonly finalizers: ReadonlyMap<string, number>;
}

function failures(outcome: DeletionOutcome): NamespaceCondition[] {
  const conditions: NamespaceCondition[] = [];
  if (outcome.undiscoverable.length > 0) {
    const cause = `unable to retrieve the complete list of server APIs: ${[...outcome.undiscoverable].sort().join(', ')}`;
    conditions.push({ type: 'NamespaceDeletionDiscoveryFailure', status: 'True', reason: 'DiscoveryFailed', message: `Discovery failed for some groups, ${outcome.undiscoverable.length} failing: ${cause}` });
  }
  if (outcome.deleteErrors.length > 0) {
    const messages = [...outcome.deleteErrors].sort().join(', ');
    conditions.push({ type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${outcome.deleteErrors.length} remaining: ${messages}` });
  }
  if (outcome.remaining.size > 0) {
    const resources = [...outcome.remaining].map(([resource, count]) => `${resource} has ${count} resource instances`).sort();
    conditions.push({ type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${resources.join(', ')}` });
  }
  if (outcome.finalizers.size > 0) {
    const held = [...outcome.finalizers].map(([finalizer, count]) => `${finalizer} in ${count} resource instances`).sort();
    conditions.push({ type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${held.join(', ')}` });
  }
  return conditions;
}

/** The namespace's conditions with these failures (and the "ok" variant of the others), as kube updates them; undefined when unchanged. */
export function updatedConditions(current: unknown, outcome: DeletionOutcome, now: string): JsonObject[] | undefined {
  const conditions = Array.isArray(current) ? current.filter(isJsonObject).map((condition) => ({ ...condition })) : [];
  const failed = failures(outcome);
  let changed = false;
  for (const [type, reason, message] of conditionTypes) {
    const next = failed.find((condition) => condition.type === type) ?? { type, status: 'False', reason, message };
    const old = conditions.find((condition) => condition['type'] === type);
    if (!old) {
      conditions.push({ ...next, lastTransitionTime: now });
      changed = true;
    } else if (old['status'] !== next.status || old['reason'] !== next.reason || old['message'] !== next.message) {
      if (old['status'] !== next.status) old['lastTransitionTime'] = now;
      Object.assign(old, { status: next.status, reason: next.reason, message: next.message });
      changed = true;
    }
  }
  return changed ? conditions : undefined;
}

function specFinalizers(namespace: KubeObject): string[] {
  const spec = namespace['spec'];
  const finalizers = isJsonObject(spec) ? spec['finalizers'] : undefined;
  return Array.isArray(finalizers) ? finalizers.filter((finalizer): finalizer is string => typeof finalizer === 'string') : [];
}

export class NamespaceController {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly cluster: Cluster) {
    this.queue = new WorkQueue((name) => this.reconcile(name));
  }

  start(): void {
    this.requeueTerminating();
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private requeueTerminating(): void {
    for (const namespace of this.cluster.store.list(namespaceResource)) {
      if (namespace.metadata.deletionTimestamp !== undefined) this.queue.add(namespace.metadata.name ?? '');
    }
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource === namespaceResource) {
      if (event.type !== 'DELETED' && event.object.metadata.deletionTimestamp !== undefined) this.queue.add(event.object.metadata.name ?? '');
      return;
    }
    // An aggregated API becoming (un)available changes what can be discovered.
    if (event.resource === apiServiceResource) {
      this.requeueTerminating();
      return;
    }
    const namespace = event.object.metadata.namespace;
    if (namespace === undefined) return;
    const owner = this.cluster.store.get(namespaceResource, undefined, namespace);
    if (owner?.metadata.deletionTimestamp !== undefined) this.queue.add(namespace);
  }

  /** Aggregated APIs whose APIService is not Available: kube's discovery fails for them. */
  private undiscoverable(): string[] {
    return this.cluster.store
      .list(apiServiceResource)
      .filter((apiService) => {
        const spec = isJsonObject(apiService['spec']) ? apiService['spec'] : {};
        const status = isJsonObject(apiService['status']) ? apiService['status'] : {};
        const available = Array.isArray(status['conditions']) ? status['conditions'].find((condition) => isJsonObject(condition) && condition['type'] === 'Available') : undefined;
        return isJsonObject(spec['service']) && isJsonObject(available) && available['status'] === 'False';
      })
      .map((apiService) => {
        const spec = apiService['spec'] as JsonObject;
        return `${String(spec['group'])}/${String(spec['version'])}: the server is currently unable to handle the request`;
      });
  }

  /** Deletes what the namespace holds (what a finalizer holds stays) and reports what is left. */
  private deleteContent(name: string): DeletionOutcome {
    const deleteErrors: string[] = [];
    const remaining = new Map<string, number>();
    const finalizers = new Map<string, number>();
    for (const type of this.cluster.registry.all()) {
      if (!type.namespaced || !type.verbs.includes('delete')) continue;
      const key = resourceKey(type);
      for (const object of this.cluster.store.list(key, name)) {
        if (object.metadata.deletionTimestamp !== undefined) continue;
        try {
          this.cluster.delete(type, name, object.metadata.name ?? '', { propagationPolicy: 'Background' });
        } catch (error) {
          if (!(error instanceof StatusError && error.code === 404)) deleteErrors.push(`${type.plural}.${type.group}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const left = this.cluster.store.list(key, name);
      if (left.length === 0) continue;
      remaining.set(`${type.plural}.${type.group}`, left.length);
      for (const object of left) for (const finalizer of object.metadata.finalizers ?? []) finalizers.set(finalizer, (finalizers.get(finalizer) ?? 0) + 1);
    }
    return { undiscoverable: this.undiscoverable(), deleteErrors, remaining, finalizers };
  }

  private reconcile(name: string): void {
    const namespaceType = this.cluster.registry.get('', 'namespaces');
    if (!namespaceType) return;
    const namespace = this.cluster.tryGet(namespaceType, undefined, name);
    if (!namespace || namespace.metadata.deletionTimestamp === undefined || !specFinalizers(namespace).includes(namespaceFinalizer)) return;
    const outcome = this.deleteContent(name);
    const current = this.cluster.tryGet(namespaceType, undefined, name);
    if (!current) return;
    const status = isJsonObject(current['status']) ? current['status'] : {};
    const conditions = updatedConditions(status['conditions'], outcome, nowTimestamp());
    if (conditions) {
      this.cluster.update(namespaceType, 'v1', undefined, name, { ...current, status: { ...status, conditions } }, { subresource: 'status', fieldManager: 'kube-controller-manager' });
    }
    if (outcome.undiscoverable.length > 0 || outcome.deleteErrors.length > 0) {
      // Not finalized while something may be left unseen or undeleted; look again soon.
      this.queue.addAfter(name, retryMs);
      return;
    }
    // Objects held by finalizers requeue us when they change or go.
    if (outcome.remaining.size > 0) return;
    const latest = this.cluster.tryGet(namespaceType, undefined, name);
    if (!latest) return;
    // Dropping the `kubernetes` finalizer removes the namespace unless metadata.finalizers still hold it.
    const finalizers = specFinalizers(latest).filter((finalizer) => finalizer !== namespaceFinalizer);
    this.cluster.update(namespaceType, 'v1', undefined, name, { ...latest, spec: { finalizers } }, { subresource: 'finalize', fieldManager: 'kube-controller-manager' });
  }
}
