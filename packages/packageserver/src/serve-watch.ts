import type { ServerResponse } from 'node:http';
import { PackageManifestStore, type ManifestEvent, type ManifestQuery } from './package-manifest-store.js';
import { packageManifestKind, packagesApiVersion, type PackageManifest } from './package-manifest.js';
import { badRequest, expired } from './status-error.js';

export interface WatchRequest {
  readonly store: PackageManifestStore;
  /** The namespace watched; undefined for all. */
  readonly namespace: string | undefined;
  readonly query: ManifestQuery;
  readonly resourceVersion: string | null;
  readonly allowBookmarks: boolean;
  readonly sendInitialEvents: boolean;
  readonly timeoutSeconds: number | undefined;
  readonly bookmarkIntervalMs: number;
  /** Turns a manifest into what the client asked for (icons stripped, maybe a Table). */
  readonly render: (manifest: PackageManifest) => unknown;
}

function parseResourceVersion(value: string | null): number | undefined {
  if (value === null || value === '' || value === '0') return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`resourceVersion: Invalid value: "${value}": must be a number`);
  return Number(value);
}

/**
 * A watch of PackageManifests: newline-delimited JSON events. Without a resourceVersion it starts
 * with the current manifests as ADDED; with one it replays retained changes after it (ERROR 410
 * Expired when they are gone). A manifest that stops or starts matching the selector is sent as
 * DELETED or ADDED. Returns the function that ends the stream.
 */
export function serveWatch(response: ServerResponse, request: WatchRequest): () => void {
  const { store, namespace, query } = request;
  const fromRevision = parseResourceVersion(request.resourceVersion);
  response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  response.flushHeaders();
  let closed = false;
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe: (() => void) | undefined;
  const write = (type: string, object: unknown): void => {
    if (!closed) response.write(`${JSON.stringify({ type, object })}\n`);
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    for (const timer of timers) clearTimeout(timer);
    unsubscribe?.();
    response.end();
  };
  response.on('close', close);

  let watermark = 0;
  const bookmark = (annotations?: Record<string, string>): void =>
    write('BOOKMARK', {
      kind: packageManifestKind,
      apiVersion: packagesApiVersion,
      metadata: { resourceVersion: String(watermark), ...(annotations ? { annotations } : {}) },
    });
  const seen = (manifest: PackageManifest | undefined): boolean =>
    manifest !== undefined && store.isVisible(manifest, namespace) && PackageManifestStore.matches(manifest, query);
  const send = (type: string, manifest: PackageManifest): void => write(type, request.render(store.asSeenFrom(manifest, namespace)));
  const handle = (event: ManifestEvent): void => {
    if (event.revision <= watermark) return;
    watermark = event.revision;
    const matchesNow = seen(event.manifest);
    if (event.type === 'DELETED') {
      if (matchesNow) send('DELETED', event.manifest);
      return;
    }
    const matchedBefore = seen(event.previous);
    if (matchesNow) send(matchedBefore ? 'MODIFIED' : 'ADDED', event.manifest);
    else if (matchedBefore && event.previous) send('DELETED', { ...event.previous, metadata: { ...event.previous.metadata, resourceVersion: String(event.revision) } });
  };

  unsubscribe = store.subscribe(handle);
  if (fromRevision === undefined || request.sendInitialEvents) {
    watermark = store.revision;
    for (const manifest of store.list(namespace, query)) write('ADDED', request.render(manifest));
    if (request.sendInitialEvents && request.allowBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
  } else {
    const events = store.eventsSince(fromRevision);
    if (events === undefined) {
      write('ERROR', expired(`too old resource version: ${fromRevision} (${store.revision})`).toStatus());
      close();
      return close;
    }
    watermark = fromRevision;
    for (const event of events) handle(event);
  }
  if (request.allowBookmarks) {
    const interval = setInterval(() => bookmark(), request.bookmarkIntervalMs);
    interval.unref();
    timers.push(interval);
  }
  if (request.timeoutSeconds !== undefined) timers.push(setTimeout(close, request.timeoutSeconds * 1000));
  return close;
}
