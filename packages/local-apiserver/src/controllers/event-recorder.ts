import type { Cluster } from '../cluster.js';
import { StatusError } from '../errors.js';
import { nowTimestamp, type KubeObject } from '../kube-object.js';

/**
 * core/v1 Events as kube-controller-manager's controllers record them (client-go's legacy event
 * recorder): named `<object>.<hex nanoseconds>`, `source.component` and `reportingComponent` the
 * controller's name, `count: 1` and both timestamps now. The same event again within ten minutes
 * bumps `count` and `lastTimestamp` of the first, as the recorder's correlator does.
 */
export interface RecordedEvent {
  readonly involved: KubeObject;
  readonly reason: string;
  readonly message: string;
  /** `deployment-controller`, `replicaset-controller`, … */
  readonly component: string;
  readonly type?: 'Normal' | 'Warning';
}

const aggregationWindowMs = 10 * 60 * 1000;
let lastNanos = 0n;

/** Unique, increasing nanoseconds for event names. */
function nanosNow(): bigint {
  const now = BigInt(Date.now()) * 1_000_000n;
  lastNanos = now > lastNanos ? now : lastNanos + 1n;
  return lastNanos;
}

export function recordEvent(cluster: Cluster, event: RecordedEvent): void {
  const events = cluster.registry.get('', 'events');
  const { involved } = event;
  const namespace = involved.metadata.namespace ?? 'default';
  if (!events) return;
  const type = event.type ?? 'Normal';
  const now = nowTimestamp();
  const same = cluster.store
    .list('/events', namespace)
    .find(
      (candidate) =>
        (candidate['involvedObject'] as { uid?: string } | undefined)?.uid === involved.metadata.uid &&
        candidate['reason'] === event.reason &&
        candidate['message'] === event.message &&
        candidate['type'] === type &&
        (candidate['source'] as { component?: string } | undefined)?.component === event.component &&
        Date.now() - Date.parse(String(candidate['lastTimestamp'])) < aggregationWindowMs,
    );
  try {
    if (same) {
      const count = typeof same['count'] === 'number' ? same['count'] : 1;
      cluster.patch(events, 'v1', namespace, same.metadata.name ?? '', 'merge', { count: count + 1, lastTimestamp: now }, { fieldManager: event.component });
      return;
    }
    cluster.create(
      events,
      'v1',
      namespace,
      {
        metadata: { name: `${involved.metadata.name ?? ''}.${nanosNow().toString(16)}`, namespace },
        involvedObject: {
          kind: involved.kind,
          namespace: involved.metadata.namespace,
          name: involved.metadata.name,
          uid: involved.metadata.uid,
          apiVersion: involved.apiVersion,
          resourceVersion: involved.metadata.resourceVersion,
        },
        reason: event.reason,
        message: event.message,
        source: { component: event.component },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type,
        reportingComponent: event.component,
        reportingInstance: '',
      },
      { fieldManager: event.component },
    );
  } catch (error) {
    // An event is best effort, as for the recorder: a terminating namespace refuses it.
    if (!(error instanceof StatusError)) throw error;
  }
}
