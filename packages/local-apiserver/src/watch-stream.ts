import type { ServerResponse } from 'node:http';
import type { Cluster, ObjectFilter } from './cluster.js';
import { badRequest, expired } from './errors.js';
import { bookmarkObject, goJsonText } from './go-json.js';
import type { JsonObject, KubeObject } from './kube-object.js';
import { resourceKey, type ResourceType } from './resource-type.js';
import type { StoreEvent } from './store.js';

/**
 * One watch connection: newline-delimited JSON events, resuming from a resourceVersion (replaying
 * retained events, or ERROR 410 when they were compacted), selector transitions as ADDED/DELETED,
 * bookmarks and `timeoutSeconds`.
 */
export interface WatchRequest {
  readonly cluster: Cluster;
  readonly type: ResourceType;
  readonly version: string;
  readonly filter: ObjectFilter;
  readonly resourceVersion: string | undefined;
  readonly allowBookmarks: boolean;
  readonly timeoutSeconds: number | undefined;
  readonly bookmarkIntervalMs: number;
  readonly sendInitialEvents: boolean;
  /** Turns an outgoing object into what the client asked for (a Table row, a converted version). */
  readonly render: (object: KubeObject) => unknown;
}

export function parseWatchResourceVersion(value: string | null): number | undefined {
  if (value === null || value === '' || value === '0') return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`resourceVersion: Invalid value: "${value}": strconv.ParseUint: parsing "${value}": invalid syntax`);
  return Number(value);
}

export function serveWatch(response: ServerResponse, request: WatchRequest, onClose: (close: () => void) => () => void): void {
  const { cluster, type, filter } = request;
  const store = cluster.store;
  const key = resourceKey(type);
  const fromRevision = parseWatchResourceVersion(request.resourceVersion ?? null);
  response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  // client-node's informer awaits the response headers; without this it waits for the first event.
  response.flushHeaders();

  let watermark = 0;
  let closed = false;
  const write = (type: string, object: unknown): void => {
    if (!closed) response.write(goJsonText({ type, object }));
  };
  const bookmark = (annotations?: Record<string, string>): void => {
    const metadata: JsonObject = { resourceVersion: String(Math.max(watermark, 0)) };
    if (annotations) metadata['annotations'] = annotations;
    write('BOOKMARK', bookmarkObject(type, request.version, metadata));
  };
  const handle = (event: StoreEvent): void => {
    if (event.revision <= watermark) return;
    watermark = event.revision;
    if (event.resource !== key) return;
    const matchesNow = event.type !== 'DELETED' && filter.matches(event.object);
    const matchedBefore = event.previous !== undefined && filter.matches(event.previous);
    if (event.type === 'DELETED') {
      if (filter.matches(event.object)) write('DELETED', request.render(event.object));
    } else if (matchesNow && matchedBefore) write('MODIFIED', request.render(event.object));
    else if (matchesNow) write('ADDED', request.render(event.object));
    else if (matchedBefore && event.previous) {
      const previous = { ...event.previous, metadata: { ...event.previous.metadata, resourceVersion: String(event.revision) } };
      write('DELETED', request.render(previous));
    }
  };

  const timers: NodeJS.Timeout[] = [];
  let unsubscribe: (() => void) | undefined;
  let unregister: (() => void) | undefined;
  let stopWatchingTypes: (() => void) | undefined;
  const close = (): void => {
    if (closed) return;
    closed = true;
    for (const timer of timers) clearTimeout(timer);
    unsubscribe?.();
    unregister?.();
    stopWatchingTypes?.();
    response.end();
  };
  // A watch on a custom resource ends when its CRD stops serving the version, as kube-apiserver's does.
  stopWatchingTypes = cluster.registry.onChange(() => {
    if (!cluster.registry.lookup(type.group, request.version, type.plural)) close();
  });
  unregister = onClose(close);
  response.on('close', close);

  unsubscribe = store.subscribe(handle);
  if (fromRevision === undefined || request.sendInitialEvents) {
    // Initial state as synthetic ADDED events (a streaming list ends with an annotated bookmark).
    watermark = store.revision;
    const { items } = cluster.list(type, filter.namespace, {});
    for (const object of items) if (filter.matches(object)) write('ADDED', request.render(object));
    if (request.sendInitialEvents && request.allowBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
  } else {
    const events = store.eventsSince(fromRevision);
    // A version past the current revision comes from an earlier run of an in-memory server: watching
    // from it would skip every event up to it, so the client is told to relist, as for a compacted one.
    const unknown = fromRevision > store.revision ? `Too large resource version: ${fromRevision}, current: ${store.revision}` : undefined;
    if (events === undefined || unknown !== undefined) {
      const status = expired(unknown ?? `too old resource version: ${fromRevision} (${store.compactedRevision + 1})`).toStatus();
      write('ERROR', status);
      close();
      return;
    }
    watermark = fromRevision;
    for (const event of events) handle(event);
  }
  if (request.allowBookmarks) {
    const interval = setInterval(() => bookmark(), request.bookmarkIntervalMs);
    interval.unref();
    timers.push(interval);
  }
  if (request.timeoutSeconds !== undefined && request.timeoutSeconds >= 0) {
    const timer = setTimeout(() => {
      if (request.allowBookmarks) bookmark();
      close();
    }, request.timeoutSeconds * 1000);
    timers.push(timer);
  }
}
