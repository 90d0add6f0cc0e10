import type { CachedObject, Logger } from '@olm/core';
import { formatTime } from '@olm/go-format';
import { describeError } from '@olm/core';
import { isNotFound } from './errors.js';
import { isNamespaceTerminatingError } from './namespace-termination.js';
import type { KubeClient } from '@olm/core';
import { silentLogger } from './logger.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  readonly client: KubeClient;
  /** `source.component` and `reportingComponent` of every event, e.g. `olm-operator`. */
  readonly component: string;
  /** `reportingInstance`, e.g. the pod name. */
  readonly instance?: string;
  readonly logger?: Logger;
  /** How many distinct events to remember for aggregation. Default 4096. */
  readonly maxRemembered?: number;
  readonly now?: () => number;
  /** Whether a namespace is being deleted: no event is recorded there (kube would refuse it). */
  readonly isNamespaceTerminating?: (namespace: string) => boolean;
}

export interface EventOptions {
  /**
   * The part of the object the event is about (`involvedObject.fieldPath`), e.g. `status.plan[2]`
   * for one step of an InstallPlan.
   */
  readonly fieldPath?: string;
}

interface Remembered {
  readonly name: string;
  readonly namespace: string;
  count: number;
}

/**
 * Records core/v1 Events about objects, which `kubectl describe` lists. A repeat of the same event
 * (same object, type, reason and message) bumps `count` and `lastTimestamp` of the existing Event
 * instead of creating another. Recording never throws: events are best effort.
 */
export class EventRecorder {
  private readonly options: EventRecorderOptions;
  private readonly logger: Logger;
  private readonly remembered = new Map<string, Remembered>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly now: () => number;

  constructor(options: EventRecorderOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
  }

  normal(object: CachedObject, reason: string, message: string, options?: EventOptions): Promise<void> {
    return this.event(object, 'Normal', reason, message, options);
  }

  warning(object: CachedObject, reason: string, message: string, options?: EventOptions): Promise<void> {
    return this.event(object, 'Warning', reason, message, options);
  }

  async event(object: CachedObject, type: EventType, reason: string, message: string, options: EventOptions = {}): Promise<void> {
    const metadata = object.metadata ?? {};
    const identity = JSON.stringify([object.apiVersion, object.kind, metadata.namespace, metadata.name, metadata.uid, options.fieldPath, type, reason, message]);
    // Repeats of one event run one after another, so the second sees the first and aggregates.
    const previous = this.pending.get(identity) ?? Promise.resolve();
    const next = previous.then(() =>
      this.record(identity, object, type, reason, message, options.fieldPath).catch((error: unknown) => {
        if (isNamespaceTerminatingError(error)) return;
        this.logger.warn('could not record event', { reason, error: describeError(error) });
      }),
    );
    this.pending.set(identity, next);
    await next;
    if (this.pending.get(identity) === next) this.pending.delete(identity);
  }

  private async record(identity: string, object: CachedObject, type: EventType, reason: string, message: string, fieldPath: string | undefined): Promise<void> {
    const metadata = object.metadata ?? {};
    const namespace = metadata.namespace || 'default';
    if (this.options.isNamespaceTerminating?.(namespace)) return;
    const involvedObject = {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: metadata.name,
      ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
      ...(metadata.uid ? { uid: metadata.uid } : {}),
      ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
      ...(fieldPath ? { fieldPath } : {}),
    };
    const now = formatTime(new Date(this.now()));
    const previous = this.remembered.get(identity);
    if (previous) {
      try {
        await this.options.client.patch(
          { apiVersion: 'v1', kind: 'Event', namespace: previous.namespace, name: previous.name },
          { count: previous.count + 1, lastTimestamp: now },
          { type: 'merge' },
        );
        previous.count += 1;
        // Refresh its place: the map forgets the least recently seen event first.
        this.remembered.delete(identity);
        this.remembered.set(identity, previous);
        return;
      } catch (error) {
        // The event expired (the API server drops events after an hour): create a new one.
        if (!isNotFound(error)) throw error;
        this.remembered.delete(identity);
      }
    }
    const name = `${metadata.name ?? 'unknown'}.${this.now().toString(16)}${Math.floor(Math.random() * 0xfff).toString(16)}`;
    await this.options.client.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject,
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: this.options.component },
      reportingComponent: this.options.component,
      ...(this.options.instance ? { reportingInstance: this.options.instance } : {}),
    });
    this.remembered.set(identity, { name, namespace, count: 1 });
    const limit = this.options.maxRemembered ?? 4096;
    while (this.remembered.size > limit) this.remembered.delete(this.remembered.keys().next().value!);
  }
}
