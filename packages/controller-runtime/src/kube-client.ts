import {
  createConfiguration,
  HttpMethod,
  KubeConfig,
  ServerConfiguration,
  Watch,
  type Configuration,
} from '@kubernetes/client-node';
import type {
  CachedObject,
  ImpersonatedUser,
  KubeClient as KubeClientContract,
  KubeObjectReference,
  KubeRequest,
  ListOptions,
  ObjectKind,
  ObjectList,
  ObjectOfKind,
  PatchType,
  ResourceInfo,
  WatchEvent,
} from '@olm/core';
import { describeError, OlmError } from '@olm/core';
import { parseWarningHeader, type WarningHandler } from './api-warnings.js';
import { isNotFound, RuntimeErrorCodes } from './errors.js';
import { isStaleConnection, parseJson, reuseConnections, send, type ConnectionPool } from './http-transport.js';
import type { KubeClientOptions } from './kube-client-types.js';
import { loadKubeConfig } from './kubeconfig.js';
import { metadataListAccept, metadataOnlyObject, metadataWatchAccept } from './metadata-only.js';

export type { KubeClientOptions } from './kube-client-types.js';
export { loadKubeConfig } from './kubeconfig.js';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** What a client and the views made by `withWarningHandler` and `impersonate` share. */
interface Connection extends ConnectionPool {
  readonly configuration: Configuration;
  readonly watcher: Watch;
  /** Watches asking for PartialObjectMetadata (client-node's Watch sends no Accept of its own). */
  readonly metadataWatcher: Watch;
  readonly discovery: Map<string, Promise<ResourceInfo[]>>;
}


/**
 * A small dynamic client over `@kubernetes/client-node`: client-node supplies authentication, TLS,
 * the HTTP stack and the watch stream; this adds discovery by kind, subresources (status) and
 * plain-JSON objects throughout (client-node's generic object API turns timestamps into `Date`s
 * and has no subresources, while its watch yields plain JSON: a cache must not mix the two).
 */
export class KubeClient implements KubeClientContract {
  readonly kubeConfig: KubeConfig;
  private readonly requestTimeoutMs: number;
  private readonly onWarning: WarningHandler | undefined;
  private connection: Connection;
  /** A view made by `withWarningHandler` or `impersonate`: the connections belong to its parent. */
  private isView = false;
  private impersonation: ImpersonatedUser | undefined;

  constructor(options: KubeClientOptions) {
    this.kubeConfig = loadKubeConfig(options.kubeconfig, options.context);
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) {
      throw new OlmError(RuntimeErrorCodes.invalidKubeconfig, 'the kubeconfig has no current cluster; set current-context');
    }
    this.connection = {
      configuration: createConfiguration({
        baseServer: new ServerConfiguration<Record<string, string>>(cluster.server, {}),
        authMethods: { default: this.kubeConfig },
      }),
      watcher: new Watch(this.kubeConfig),
      metadataWatcher: new Watch(withAcceptHeader(this.kubeConfig, metadataWatchAccept)),
      discovery: new Map(),
    };
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.onWarning = options.onWarning;
  }

  /**
   * A client for one task that hands the API warnings of its own requests to `handler` (instead of
   * this client's `onWarning`). It shares this client's connections and discovery cache, so it is
   * cheap to make per task, and concurrent tasks each see only their own warnings. Its `close()`
   * does nothing: close this client instead.
   */
  withWarningHandler(handler: WarningHandler): KubeClient {
    return this.view(handler, this.impersonation);
  }

  /**
   * A client whose requests act as `user` (the `Impersonate-User`/`Impersonate-Group` headers): the
   * API server authorizes each one as that user, so the caller needs `impersonate` on it (for a
   * ServiceAccount, on `serviceaccounts` in its namespace). It shares this client's connections,
   * discovery and warning handler; its `close()` does nothing. It cannot watch.
   */
  impersonate(user: ImpersonatedUser): KubeClient {
    if (!user.username) throw new OlmError(RuntimeErrorCodes.invalidArgument, 'impersonation needs a username');
    return this.view(this.onWarning, user);
  }

  /** Whom this client acts as, when it impersonates someone. */
  get impersonatedUser(): ImpersonatedUser | undefined {
    return this.impersonation;
  }

  private view(onWarning: WarningHandler | undefined, impersonation: ImpersonatedUser | undefined): KubeClient {
    // Made per task (each install impersonates): share the parent's configuration, watcher and connections
    // rather than build client-node's objects again.
    const fields = { kubeConfig: this.kubeConfig, requestTimeoutMs: this.requestTimeoutMs, onWarning, connection: this.connection, isView: true, impersonation };
    return Object.assign(Object.create(KubeClient.prototype) as KubeClient, fields);
  }

  /** The namespace of the kubeconfig's current context, or `default`. */
  get defaultNamespace(): string {
    const context = this.kubeConfig.getContextObject(this.kubeConfig.getCurrentContext());
    return context?.namespace || 'default';
  }

  get server(): string {
    return this.kubeConfig.getCurrentCluster()!.server;
  }

  /** Discovery for a kind, cached per group/version and refetched when the kind is missing (new CRD). */
  async resourceFor(kind: ObjectKind): Promise<ResourceInfo> {
    const find = (resources: ResourceInfo[]) => resources.find((resource) => resource.kind === kind.kind);
    const discovery = this.connection.discovery;
    const cached = discovery.get(kind.apiVersion);
    if (cached) {
      const hit = find(await cached.catch(() => []));
      if (hit) return hit;
    }
    const loading = this.loadResources(kind.apiVersion);
    discovery.set(kind.apiVersion, loading);
    const found = find(await loading.catch((error: unknown) => {
      discovery.delete(kind.apiVersion);
      if (isNotFound(error)) return [];
      throw error;
    }));
    if (!found) {
      throw new OlmError(
        RuntimeErrorCodes.unknownKind,
        `the API server does not serve kind ${kind.kind} in ${kind.apiVersion}; is its CRD installed?`,
        { details: { apiVersion: kind.apiVersion, kind: kind.kind } },
      );
    }
    return found;
  }

  /** The URL path of a collection (no name) or an object, optionally a subresource of it. */
  async pathFor(reference: ObjectKind & { name?: string; namespace?: string }, subresource?: string): Promise<string> {
    const resource = await this.resourceFor(reference);
    const base = reference.apiVersion.includes('/') ? `/apis/${reference.apiVersion}` : `/api/${reference.apiVersion}`;
    const parts = [base];
    if (resource.namespaced && reference.namespace) parts.push('namespaces', encodeURIComponent(reference.namespace));
    parts.push(resource.plural);
    if (reference.name !== undefined) parts.push(encodeURIComponent(reference.name));
    if (subresource) parts.push(subresource);
    return parts.join('/');
  }

  // Typed by the reference's kind, or by the caller (core's KubeClient): the server's JSON is taken to be of its kind.
  get<R extends KubeObjectReference>(reference: R): Promise<ObjectOfKind<R>>;
  get<T extends CachedObject>(reference: KubeObjectReference): Promise<T>;
  async get(reference: KubeObjectReference): Promise<CachedObject> {
    return (await this.request({ method: 'GET', path: await this.pathFor(reference) })) as CachedObject;
  }

  /** Like `get`, but undefined when the object does not exist. */
  find<R extends KubeObjectReference>(reference: R): Promise<ObjectOfKind<R> | undefined>;
  find<T extends CachedObject>(reference: KubeObjectReference): Promise<T | undefined>;
  async find(reference: KubeObjectReference): Promise<CachedObject | undefined> {
    try {
      return await this.get<CachedObject>(reference);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  list<K extends ObjectKind>(kind: K, options?: ListOptions): Promise<ObjectList<ObjectOfKind<K> & CachedObject>>;
  list<T extends CachedObject>(kind: ObjectKind, options?: ListOptions): Promise<ObjectList<T>>;
  async list(kind: ObjectKind, options: ListOptions = {}): Promise<ObjectList<CachedObject>> {
    type T = CachedObject;
    const path = await this.pathFor({ ...kind, namespace: options.namespace });
    const body = (await this.request({
      method: 'GET',
      path,
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit === undefined ? undefined : String(options.limit),
        continue: options.continue,
      },
      signal: options.signal,
      ...(options.metadataOnly ? { accept: metadataListAccept } : {}),
    })) as { items?: T[] | null; metadata?: { resourceVersion?: string; continue?: string } };
    // List items carry no apiVersion/kind on a real API server; fill them so objects look alike everywhere.
    const items = (body.items ?? []).map((item) =>
      options.metadataOnly ? (metadataOnlyObject(kind, item) as T) : item.apiVersion && item.kind ? item : ({ ...item, apiVersion: kind.apiVersion, kind: kind.kind } as T),
    );
    const next = body.metadata?.continue;
    return { items, resourceVersion: body.metadata?.resourceVersion ?? '', ...(next ? { continue: next } : {}) };
  }

  async create<T extends CachedObject>(object: T, options: { readonly fieldManager?: string } = {}): Promise<T> {
    const path = await this.pathFor(kindAndPlace(object));
    return (await this.request({ method: 'POST', path, query: { fieldManager: options.fieldManager }, body: object })) as T;
  }

  /** PUT the whole object; fails with 409 Conflict when `metadata.resourceVersion` is stale. */
  async replace<T extends CachedObject>(object: T, options: { readonly fieldManager?: string } = {}): Promise<T> {
    const path = await this.pathFor(referenceOf(object));
    return (await this.request({ method: 'PUT', path, query: { fieldManager: options.fieldManager }, body: object })) as T;
  }

  /** PUT the object's status through the status subresource (spec changes are ignored by the server). */
  async replaceStatus<T extends CachedObject>(object: T, options: { readonly fieldManager?: string } = {}): Promise<T> {
    const path = await this.pathFor(referenceOf(object), 'status');
    return (await this.request({ method: 'PUT', path, query: { fieldManager: options.fieldManager }, body: object })) as T;
  }

  async patch<T extends CachedObject = CachedObject>(
    reference: KubeObjectReference,
    patch: unknown,
    options: { readonly type?: PatchType; readonly fieldManager?: string; readonly force?: boolean; readonly subresource?: string } = {},
  ): Promise<T> {
    const type = options.type ?? 'merge';
    const path = await this.pathFor(reference, options.subresource);
    return (await this.request({
      method: 'PATCH',
      path,
      query: {
        fieldManager: options.fieldManager,
        force: options.force === undefined ? undefined : String(options.force),
      },
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
    })) as T;
  }

  /**
   * Server-side apply: the server merges the fields in `object` owned by `fieldManager` and creates
   * the object when absent. `force` takes over fields another manager owns.
   */
  async apply<T extends CachedObject>(
    object: T,
    options: { readonly fieldManager: string; readonly force?: boolean; readonly subresource?: string },
  ): Promise<T> {
    return this.patch<T>(referenceOf(object), object, { ...options, type: 'apply' });
  }

  async delete(reference: KubeObjectReference, options: { readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' } = {}): Promise<void> {
    const path = await this.pathFor(reference);
    await this.request({
      method: 'DELETE',
      path,
      body: options.propagationPolicy ? { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: options.propagationPolicy } : undefined,
    });
  }

  /**
   * Opens a watch through client-node's `Watch`. `onDone` is called once when the stream ends: with
   * null on a clean close, or the error. Returns a function that closes the stream. With
   * `metadataOnly` the server sends PartialObjectMetadata (reduce each object with `metadataOnlyObject`).
   */
  async watch(
    path: string,
    query: Readonly<Record<string, string | undefined>>,
    onEvent: (event: WatchEvent) => void,
    onDone: (error: unknown) => void,
    options: { readonly metadataOnly?: boolean } = {},
  ): Promise<() => void> {
    if (this.impersonation) {
      // client-node's Watch sends only the kubeconfig's credentials: it would watch as the parent.
      throw new OlmError(RuntimeErrorCodes.invalidState, `a client impersonating ${this.impersonation.username} cannot watch ${path}`);
    }
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params[key] = value;
    const watcher = options.metadataOnly ? this.connection.metadataWatcher : this.connection.watcher;
    const controller = await watcher.watch(
      path,
      params,
      (type: string, object: WatchEvent['object']) => onEvent({ type, object }),
      (error: unknown) => onDone(error ?? null),
    );
    return () => controller.abort();
  }

  /**
   * One HTTP request, authenticated by client-node (headers, TLS and proxy agent from the kubeconfig)
   * and sent by node's http client; JSON in, JSON out. API warnings of the response go to the warning
   * handler, whether the request succeeded or not.
   */
  async request(options: KubeRequest): Promise<unknown> {
    const configuration = this.connection.configuration;
    const context = configuration.baseServer.makeRequestContext(options.path, HttpMethod[options.method]);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) context.setQueryParam(key, value);
    }
    context.setHeaderParam('Accept', options.accept ?? 'application/json');
    if (options.body !== undefined) {
      context.setHeaderParam('Content-Type', options.contentType ?? 'application/json');
      context.setBody(JSON.stringify(options.body));
    }
    const deadline = requestDeadline(this.requestTimeoutMs, options.signal);
    context.setSignal(deadline.signal);
    let status = 0;
    let text = '';
    let warningHeader: string | undefined;
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          await configuration.authMethods.default?.applySecurityAuthentication(context);
          reuseConnections(this.connection, context);
          ({ status, warningHeader, text } = await send(context, this.impersonationHeaders()));
          break;
        } catch (error) {
          // A pooled connection the server closed meanwhile fails at once; a GET is safe to send again.
          if (attempt === 1 && options.method === 'GET' && isStaleConnection(error)) continue;
          throw new OlmError(
            RuntimeErrorCodes.kubeUnreachable,
            `${options.method} ${options.path} failed: ${describeError(error)}`,
            { cause: error, details: { method: options.method, path: options.path } },
          );
        }
      }
    } finally {
      deadline.done();
    }
    if (warningHeader && this.onWarning) this.reportWarnings(warningHeader, this.onWarning);
    const parsed = parseJson(text);
    if (status >= 200 && status < 300) return parsed;
    const statusObject = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
      reason?: string;
      message?: string;
    };
    throw new OlmError(
      RuntimeErrorCodes.kubeApi,
      `${options.method} ${options.path}: ${status} ${statusObject.reason ?? ''} ${statusObject.message ?? text}`.replace(/\s+/g, ' ').trim(),
      { details: { statusCode: status, reason: statusObject.reason, status: parsed, method: options.method, path: options.path } },
    );
  }

  private impersonationHeaders(): Record<string, string | string[]> {
    if (!this.impersonation) return {};
    const groups = this.impersonation.groups ?? [];
    return { 'Impersonate-User': this.impersonation.username, ...(groups.length > 0 ? { 'Impersonate-Group': [...groups] } : {}) };
  }

  private reportWarnings(header: string, handler: WarningHandler): void {
    for (const warning of parseWarningHeader(header)) {
      try {
        handler(warning);
      } catch {
        // A warning handler must not turn a request that worked into a failure.
      }
    }
  }


  /** Closes pooled connections (idle ones close by themselves; call when done with the client). */
  close(): void {
    if (this.isView) return;
    this.connection.keepAlive?.agent.destroy();
    this.connection.keepAlive = undefined;
  }

  private async loadResources(apiVersion: string): Promise<ResourceInfo[]> {
    const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const body = (await this.request({ method: 'GET', path })) as {
      resources?: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[] }>;
    };
    const all = body.resources ?? [];
    return all
      .filter((resource) => !resource.name.includes('/'))
      .map((resource) => ({
        apiVersion,
        kind: resource.kind,
        plural: resource.name,
        namespaced: resource.namespaced,
        verbs: resource.verbs ?? [],
        subresources: all
          .filter((candidate) => candidate.name.startsWith(`${resource.name}/`))
          .map((candidate) => candidate.name.slice(resource.name.length + 1)),
      }));
  }
}


/** The reference to an object, read from its own fields. */
export function referenceOf(object: CachedObject): KubeObjectReference {
  const { apiVersion, kind } = object;
  const name = object.metadata?.name;
  if (!apiVersion || !kind || !name) {
    throw new OlmError(RuntimeErrorCodes.invalidArgument, 'the object needs apiVersion, kind and metadata.name', {
      details: { apiVersion, kind, name },
    });
  }
  const namespace = object.metadata?.namespace;
  return namespace ? { apiVersion, kind, name, namespace } : { apiVersion, kind, name };
}

function kindAndPlace(object: CachedObject): ObjectKind & { namespace?: string } {
  if (!object.apiVersion || !object.kind) {
    throw new OlmError(RuntimeErrorCodes.invalidArgument, 'the object needs apiVersion and kind');
  }
  const namespace = object.metadata?.namespace;
  return namespace ? { apiVersion: object.apiVersion, kind: object.kind, namespace } : { apiVersion: object.apiVersion, kind: object.kind };
}

/** The kubeconfig's credentials and cluster, with an Accept header on every request made through it. */
function withAcceptHeader(kubeConfig: KubeConfig, accept: string): KubeConfig {
  const view = Object.create(kubeConfig) as KubeConfig;
  view.applyToFetchOptions = (options) => kubeConfig.applyToFetchOptions({ ...options, headers: { ...options.headers, Accept: accept } });
  return view;
}

/**
 * A request's signal: aborted by the caller's signal or after `timeoutMs`. Unlike AbortSignal.timeout,
 * its timer is cleared once the request is done: a controller sends tens of thousands of requests, and
 * each timeout signal would otherwise fire a minute later, making an exception and an abort event for
 * a request long finished.
 */
function requestDeadline(timeoutMs: number, caller: AbortSignal | undefined): { readonly signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
  timer.unref();
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) controller.abort(caller.reason);
  else caller?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}
