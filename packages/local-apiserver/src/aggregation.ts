import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { resolveBackend, serviceReference } from './api-service-backend.js';
import type { Cluster } from './cluster.js';
import type { UserInfo } from './auth/user-info.js';
import { apiGroupList } from './discovery.js';
import { StatusError } from './errors.js';
import { withAuthProxyHeaders, type FrontProxyMaterial } from './front-proxy.js';
import { isJsonObject, type JsonObject, type KubeObject } from './kube-object.js';
import { openApiV3Index } from './openapi.js';
import { compareKubeVersions, groupVersion } from './resource-type.js';

/**
 * API aggregation, as kube-aggregator does it: an `apiregistration.k8s.io/v1` APIService with
 * `spec.service` claims `/apis/<group>/<version>`; requests under it are proxied to that backend
 * (see `resolveBackend` for how it is found), and its group shows in `/apis` and
 * `/apis/<group>` beside the groups served here. The client's credentials are not forwarded: as
 * kube-aggregator, the proxy presents the front-proxy client certificate and names the
 * authenticated user in X-Remote-User/X-Remote-Group/X-Remote-Extra-* (see front-proxy.ts).
 * Unlike kube-aggregator, a request is proxied whatever the APIService's `Available` condition
 * says (an unreachable backend answers 503), so that a freshly registered backend is usable
 * before its first availability check. Access control (authentication, authorization) is in front.
 */
export interface AggregationOptions {
  readonly cluster: Cluster;
  /** Registers an open proxied request (a watch) so that stop() can end it; returns the unregister function. */
  readonly trackWatch: (close: () => void) => () => void;
  /** The client certificate proxied requests present to backends. */
  readonly frontProxy?: FrontProxyMaterial;
  /** The authenticated user of a request (set by access control in front), named to the backend. */
  readonly userOf?: (request: IncomingMessage) => UserInfo | undefined;
}

const apiServiceResource = 'apiregistration.k8s.io/apiservices';

/** How long connecting to a backend (TLS handshake included) may take. */
const connectTimeoutMs = 5_000;

const hopByHop = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization']);

function spec(apiService: KubeObject): JsonObject {
  return isJsonObject(apiService['spec']) ? apiService['spec'] : {};
}

/** Service-backed APIServices, by `<group>/<version>`. */
function aggregatedApiServices(cluster: Cluster): Map<string, KubeObject> {
  const out = new Map<string, KubeObject>();
  for (const apiService of cluster.store.list(apiServiceResource)) {
    if (!serviceReference(apiService) || apiService.metadata.deletionTimestamp !== undefined) continue;
    const { group, version } = spec(apiService);
    if (typeof group === 'string' && group !== '' && typeof version === 'string' && version !== '') out.set(`${group}/${version}`, apiService);
  }
  return out;
}

/** The versions each aggregated group serves, highest `versionPriority` first (then Kubernetes version order). */
function aggregatedGroups(cluster: Cluster): Map<string, string[]> {
  const byGroup = new Map<string, { version: string; priority: number }[]>();
  for (const apiService of aggregatedApiServices(cluster).values()) {
    const { group, version, versionPriority } = spec(apiService) as { group: string; version: string; versionPriority?: unknown };
    const versions = byGroup.get(group) ?? [];
    versions.push({ version, priority: typeof versionPriority === 'number' ? versionPriority : 0 });
    byGroup.set(group, versions);
  }
  const out = new Map<string, string[]>();
  for (const [group, versions] of byGroup) {
    out.set(group, versions.sort((left, right) => right.priority - left.priority || compareKubeVersions(left.version, right.version)).map((entry) => entry.version));
  }
  return out;
}

function groupDocument(name: string, versions: readonly string[]): JsonObject {
  const entries = versions.map((version) => ({ groupVersion: groupVersion(name, version), version }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

function sendJson(response: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  response.end(text);
}

/** `/apis` with the aggregated groups added (versions merged into a group also served here). */
export function aggregatedApiGroupList(cluster: Cluster): JsonObject {
  const local = apiGroupList(cluster.registry);
  const groups = (local['groups'] as JsonObject[]).map((group) => ({ ...group }));
  for (const [name, versions] of aggregatedGroups(cluster)) {
    const existing = groups.find((group) => group['name'] === name);
    if (!existing) {
      groups.push(groupDocument(name, versions));
      continue;
    }
    const known = (existing['versions'] as { version: string }[]).map((entry) => entry.version);
    Object.assign(existing, groupDocument(name, [...versions, ...known.filter((version) => !versions.includes(version))]));
  }
  return { ...local, groups };
}

function proxy(request: IncomingMessage, response: ServerResponse, apiService: KubeObject, options: AggregationOptions): void {
  const { cluster, trackWatch, frontProxy } = options;
  const resolution = resolveBackend(cluster, apiService);
  if (!resolution.ok) throw new StatusError(503, 'ServiceUnavailable', `service unavailable: ${resolution.message}`);
  const { backend } = resolution;
  let headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) if (!hopByHop.has(name) && value !== undefined) headers[name] = value;
  const user = options.userOf?.(request);
  if (user) headers = withAuthProxyHeaders(headers, user);
  const remote = request.socket.remoteAddress;
  if (remote) headers['x-forwarded-for'] = request.headers['x-forwarded-for'] ? `${String(request.headers['x-forwarded-for'])}, ${remote}` : remote;
  const send = backend.protocol === 'https' ? httpsRequest : httpRequest;
  const upstream = send({
    host: backend.host,
    port: backend.port,
    method: request.method,
    path: request.url,
    headers,
    ...(backend.protocol === 'https' ? { ...backend.tls, ...(frontProxy ? { cert: frontProxy.clientCertificate, key: frontProxy.clientKey } : {}) } : {}),
  });
  // A Service address nothing answers on (a simulated cluster IP) fails in seconds, not at the OS timeout.
  upstream.on('socket', (socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(() => upstream.destroy(new Error(`dial tcp ${backend.host}:${backend.port}: i/o timeout (no ${backend.protocol === 'https' ? 'TLS handshake' : 'connection'} within ${connectTimeoutMs} ms)`)), connectTimeoutMs);
    socket.once(backend.protocol === 'https' ? 'secureConnect' : 'connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
  let unregister: (() => void) | undefined;
  let finished = false;
  const close = (): void => {
    unregister?.();
    // A finished exchange leaves its connection to the agent's pool; only a cut-off one is torn down.
    if (!finished) upstream.destroy();
    if (!response.writableEnded) response.end();
  };
  unregister = trackWatch(close);
  upstream.on('response', (answer) => {
    const out: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers)) if (!hopByHop.has(name) && value !== undefined) out[name] = value;
    response.writeHead(answer.statusCode ?? 502, out);
    // Watches: the client waits for the headers before it reads events.
    response.flushHeaders();
    answer.pipe(response);
    answer.on('end', () => {
      finished = true;
      unregister?.();
    });
  });
  upstream.on('error', (error) => {
    unregister?.();
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const failure = new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${error.message}`);
    sendJson(response, failure.code, failure.toStatus());
  });
  response.on('close', close);
  request.pipe(upstream);
}

/**
 * Wraps the server's request handler: serves `/apis` and `/apis/<aggregated group>` with the
 * aggregated groups, proxies `/apis/<group>/<version>/…` of service-backed APIServices (and their
 * `/openapi/v3/apis/<group>/<version>`, listed in `/openapi/v3`), and passes everything else on.
 */
export function withAggregation(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  options: AggregationOptions,
): (request: IncomingMessage, response: ServerResponse) => void {
  const { cluster } = options;
  // `/openapi/v3` lists the aggregated group-versions too; their documents come from their backends.
  const serveOpenApi = (request: IncomingMessage, response: ServerResponse, path: string, method: string): boolean => {
    if (method !== 'GET' && method !== 'HEAD') return false;
    const aggregated = aggregatedApiServices(cluster);
    if (path === '/openapi/v3') {
      const index = openApiV3Index(cluster.registry) as { paths: JsonObject };
      const paths: JsonObject = { ...index.paths };
      for (const [groupVersionKey, apiService] of aggregated) {
        const hash = createHash('sha512').update(`${apiService.metadata.uid ?? ''}/${apiService.metadata.resourceVersion ?? ''}`).digest('hex').slice(0, 128).toUpperCase();
        paths[`apis/${groupVersionKey}`] = { serverRelativeURL: `/openapi/v3/apis/${groupVersionKey}?hash=${hash}` };
      }
      sendJson(response, 200, { paths });
      return true;
    }
    const named = /^\/openapi\/v3\/apis\/([^/]+)\/([^/]+)$/.exec(path);
    const apiService = named ? aggregated.get(`${named[1]}/${named[2]}`) : undefined;
    if (!apiService) return false;
    proxy(request, response, apiService, options);
    return true;
  };
  const serve = (request: IncomingMessage, response: ServerResponse): boolean => {
    const target = request.url ?? '/';
    const questionMark = target.indexOf('?');
    const rawPath = questionMark >= 0 ? target.slice(0, questionMark) : target;
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const method = request.method ?? 'GET';
    if (path.startsWith('/openapi/v3')) return serveOpenApi(request, response, path, method);
    if (!path.startsWith('/apis')) return false;
    let segments: string[];
    try {
      segments = path.split('/').slice(1).map((segment) => decodeURIComponent(segment));
    } catch {
      return false;
    }
    if (segments[0] !== 'apis') return false;
    if (segments.length === 1) {
      if (method !== 'GET' && method !== 'HEAD') return false;
      sendJson(response, 200, aggregatedApiGroupList(cluster));
      return true;
    }
    const group = segments[1] ?? '';
    if (segments.length === 2) {
      const versions = aggregatedGroups(cluster).get(group);
      if (!versions || (method !== 'GET' && method !== 'HEAD')) return false;
      const local = cluster.registry.groups().get(group) ?? [];
      sendJson(response, 200, { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group, [...versions, ...local.filter((version) => !versions.includes(version))]) });
      return true;
    }
    const apiService = aggregatedApiServices(cluster).get(`${group}/${segments[2] ?? ''}`);
    if (!apiService) return false;
    proxy(request, response, apiService, options);
    return true;
  };
  return (request, response) => {
    let served: boolean;
    try {
      served = serve(request, response);
    } catch (error) {
      const failure = error instanceof StatusError ? error : new StatusError(500, 'InternalError', error instanceof Error ? error.message : String(error));
      if (response.headersSent) response.destroy();
      else sendJson(response, failure.code, failure.toStatus());
      return;
    }
    if (!served) handler(request, response);
  };
}
