import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseLabelSelector, type Selector } from '@olm/label-selector';
import { defaultIcon } from './default-icon.js';
import { PackageManifestStore, type ManifestQuery } from './package-manifest-store.js';
import {
  packageManifestKind,
  packageManifestPlural,
  packagesApiVersion,
  packagesGroup,
  packagesVersion,
  type PackageChannel,
  type PackageManifest,
} from './package-manifest.js';
import { openApiDocument, openApiGroupVersionPath, openApiIndex } from './openapi.js';
import { serveWatch } from './serve-watch.js';
import { badRequest, methodNotAllowed, notFound, pathNotFound, StatusError } from './status-error.js';
import { manifestTable, tableContentType, wantsTable } from './table.js';

export interface ApiHandlerOptions {
  readonly store: PackageManifestStore;
  /** Whether the CatalogSource cache has synced (`/readyz`). */
  readonly isReady: () => boolean;
  /** Interval of watch bookmarks when clients allow them; default 60 s. */
  readonly bookmarkIntervalMs?: number;
  /** Registers an open watch so that stopping the server ends it; returns the unregister function. */
  readonly trackWatch: (close: () => void) => () => void;
}

const groupVersionForDiscovery = { groupVersion: packagesApiVersion, version: packagesVersion };
const apiGroup = { name: packagesGroup, versions: [groupVersionForDiscovery], preferredVersion: groupVersionForDiscovery };

/** Discovery of the group: get, list and watch on packagemanifests, get on their icon. */
export const apiResourceList = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: packagesApiVersion,
  resources: [
    { name: packageManifestPlural, singularName: 'packagemanifest', namespaced: true, kind: packageManifestKind, verbs: ['get', 'list', 'watch'] },
    { name: `${packageManifestPlural}/icon`, singularName: '', namespaced: true, kind: packageManifestKind, verbs: ['get'] },
  ],
};

function sendJson(response: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const text = JSON.stringify(body);
  response.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  response.end(text);
}

/** Icons are served by the `icon` subresource only, as upstream strips them from objects to keep lists small. */
function withoutIcons(manifest: PackageManifest): PackageManifest {
  if (!manifest.status.channels.some((channel) => channel.currentCSVDesc.icon !== undefined)) return manifest;
  const channels = manifest.status.channels.map((channel): PackageChannel => {
    const { icon: _icon, ...description } = channel.currentCSVDesc;
    return { ...channel, currentCSVDesc: description };
  });
  return { ...manifest, status: { ...manifest.status, channels } };
}

/** The only field selector upstream supports: `metadata.name=` (or `==`). */
function nameFromFieldSelector(selector: string | null): string | undefined {
  let name: string | undefined;
  for (const requirement of (selector ?? '').split(',')) {
    if (requirement.trim() === '') continue;
    const match = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(requirement);
    if (!match) throw badRequest(`invalid field selector requirement "${requirement}": use metadata.name=<name>`);
    if (match[1] !== 'metadata.name' || match[2] === '!=') throw badRequest(`field label not supported: ${match[1]}`);
    name = match[3];
  }
  return name;
}

function labelSelectorOf(selector: string | null): Selector | undefined {
  if (selector === null || selector.trim() === '') return undefined;
  try {
    return parseLabelSelector(selector);
  } catch (error) {
    throw badRequest((error as Error).message);
  }
}

interface ResourcePath {
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

/** `/apis/packages.operators.coreos.com/v1/[namespaces/<ns>/]packagemanifests[/<name>[/icon]]`. */
function parseResourcePath(segments: readonly string[]): ResourcePath | undefined {
  let rest = segments;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest[0] !== packageManifestPlural || rest.length > 3 || rest.some((segment) => segment === '')) return undefined;
  const [, name, subresource] = rest;
  if (name !== undefined && namespace === undefined) return undefined;
  return { ...(namespace !== undefined ? { namespace } : {}), ...(name !== undefined ? { name } : {}), ...(subresource !== undefined ? { subresource } : {}) };
}

/**
 * The packageserver's HTTP surface: health, OpenAPI v3, discovery of `packages.operators.coreos.com/v1`
 * (served to the aggregator), and read-only PackageManifests (get, list, watch, Table output,
 * label selectors, `metadata.name` field selector, the `icon` subresource).
 */
export function createApiHandler(options: ApiHandlerOptions): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    try {
      route(options, request, response);
    } catch (error) {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const status = error instanceof StatusError ? error : new StatusError(500, 'InternalError', `Internal error occurred: ${(error as Error).message}`);
      sendJson(response, status.code, status.toStatus());
    }
  };
}

function route(options: ApiHandlerOptions, request: IncomingMessage, response: ServerResponse): void {
  const target = request.url ?? '/';
  const questionMark = target.indexOf('?');
  const query = new URLSearchParams(questionMark >= 0 ? target.slice(questionMark + 1) : '');
  const rawPath = questionMark >= 0 ? target.slice(0, questionMark) : target;
  const pathname = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  if (pathname === '/healthz' || pathname === '/livez' || pathname === '/readyz') {
    const ready = pathname !== '/readyz' || options.isReady();
    response.writeHead(ready ? 200 : 503, { 'Content-Type': 'text/plain; charset=utf-8' });
    response.end(ready ? 'ok' : 'the CatalogSource cache has not synced yet');
    return;
  }
  let segments: string[];
  try {
    segments = pathname.split('/').slice(1).map((segment) => decodeURIComponent(segment));
  } catch {
    throw badRequest(`malformed request path: ${target}`);
  }
  if (segments[0] === 'openapi' && segments[1] === 'v3') {
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed();
    if (segments.length === 2) return sendJson(response, 200, openApiIndex);
    if (segments.slice(2).join('/') === openApiGroupVersionPath) return sendJson(response, 200, openApiDocument);
    throw pathNotFound();
  }
  if (segments[0] !== 'apis') throw pathNotFound();
  if (segments.length > 1 && segments[1] !== packagesGroup) throw pathNotFound();
  if (segments.length <= 3 && request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed();
  if (segments.length === 1) return sendJson(response, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [apiGroup] });
  if (segments.length === 2) return sendJson(response, 200, { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup });
  if (segments[2] !== packagesVersion) throw pathNotFound();
  if (segments.length === 3) return sendJson(response, 200, apiResourceList);
  const path = parseResourcePath(segments.slice(3));
  if (!path) throw pathNotFound();
  serveResource(options, request, response, path, query);
}

function serveResource(options: ApiHandlerOptions, request: IncomingMessage, response: ServerResponse, path: ResourcePath, query: URLSearchParams): void {
  const { store } = options;
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed();
  const table = wantsTable(request.headers.accept);
  const includeObject = query.get('includeObject');
  if (path.name !== undefined) {
    const namespace = path.namespace ?? '';
    if (path.subresource === 'icon') return serveIcon(store, request, response, namespace, path.name);
    if (path.subresource !== undefined) throw pathNotFound();
    const manifest = store.get(namespace, path.name);
    if (!manifest) throw notFound(path.name);
    if (table) sendJson(response, 200, manifestTable([withoutIcons(manifest)], { includeObject, resourceVersion: manifest.metadata.resourceVersion ?? '' }), tableContentType);
    else sendJson(response, 200, withoutIcons(manifest));
    return;
  }
  const manifestQuery: ManifestQuery = {
    ...optionalField('labelSelector', labelSelectorOf(query.get('labelSelector'))),
    ...optionalField('name', nameFromFieldSelector(query.get('fieldSelector'))),
  };
  const watch = query.get('watch');
  if (watch === 'true' || watch === '1') return serveManifestWatch(options, response, path, manifestQuery, query, table);
  const items = store.list(path.namespace, manifestQuery).map(withoutIcons);
  const resourceVersion = String(store.revision);
  if (table) {
    sendJson(response, 200, manifestTable(items, { includeObject, resourceVersion }), tableContentType);
    return;
  }
  sendJson(response, 200, { kind: 'PackageManifestList', apiVersion: packagesApiVersion, metadata: { resourceVersion }, items });
}

function serveManifestWatch(options: ApiHandlerOptions, response: ServerResponse, path: ResourcePath, manifestQuery: ManifestQuery, query: URLSearchParams, table: boolean): void {
  const includeObject = query.get('includeObject');
  const timeout = query.get('timeoutSeconds');
  const close = serveWatch(response, {
    store: options.store,
    namespace: path.namespace,
    query: manifestQuery,
    resourceVersion: query.get('resourceVersion'),
    allowBookmarks: query.get('allowWatchBookmarks') === 'true',
    sendInitialEvents: query.get('sendInitialEvents') === 'true',
    timeoutSeconds: timeout !== null && /^\d+$/.test(timeout) && Number(timeout) > 0 ? Number(timeout) : undefined,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    render: (manifest: PackageManifest): unknown => (table ? manifestTable([withoutIcons(manifest)], { includeObject }) : withoutIcons(manifest)),
  });
  const unregister = options.trackWatch(close);
  response.on('close', () => unregister());
}

function serveIcon(store: ApiHandlerOptions['store'], request: IncomingMessage, response: ServerResponse, namespace: string, name: string): void {
  const manifest = store.get(namespace, name);
  if (!manifest) throw notFound(name);
  const channel = manifest.status.channels.find((candidate) => candidate.name === manifest.status.defaultChannel);
  const icon = channel?.currentCSVDesc.icon?.[0];
  if (!channel || !icon?.base64data) {
    response.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Content-Length': Buffer.byteLength(defaultIcon) });
    response.end(defaultIcon);
    return;
  }
  const etag = `"${[name, channel.name, channel.currentCSV].join('.')}"`;
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, { ETag: etag });
    response.end();
    return;
  }
  const bytes = Buffer.from(icon.base64data, 'base64');
  response.writeHead(200, { 'Content-Type': icon.mediatype ?? 'application/octet-stream', 'Content-Length': bytes.length, ETag: etag });
  response.end(bytes);
}

function optionalField<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
