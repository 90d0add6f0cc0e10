import { createSingleExtensionPoint } from '../kernel/extension-point.js';
import type { CachedObject, ObjectKind, ObjectOfKind } from './reconcilers.js';

/** What discovery says about a kind. */
export interface ResourceInfo {
  readonly apiVersion: string;
  readonly kind: string;
  /** The plural resource name used in URLs (`configmaps`). */
  readonly plural: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly subresources: readonly string[];
}

/**
 * Identifies one object: its kind, name and (for a namespaced kind) namespace. Spread from a typed kind
 * (`{ ...Kinds.deployment, name, namespace }`), it carries the kind's object type, and `get`, `find` and
 * `list` return that type.
 */
export interface KubeObjectReference extends ObjectKind {
  readonly name: string;
  readonly namespace?: string;
}

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  /** Abandons the request when aborted. */
  readonly signal?: AbortSignal;
  /** Only each object's metadata (PartialObjectMetadata on the wire). */
  readonly metadataOnly?: boolean;
}

/** A list page: items (with `apiVersion`/`kind` filled in) and where to resume. */
export interface ObjectList<T extends CachedObject = CachedObject> {
  readonly items: T[];
  readonly resourceVersion: string;
  readonly continue?: string;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** One line of a watch stream. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR' | string;
  readonly object: CachedObject & { code?: number; reason?: string; message?: string };
}

/**
 * Whom a client acts as (kube-apiserver's impersonation): sent as `Impersonate-User` and one
 * `Impersonate-Group` per group. The API server then authorizes every request as that user.
 */
export interface ImpersonatedUser {
  readonly username: string;
  /** Omitted for a ServiceAccount user: the server gives it the account's groups, as kube-apiserver does. */
  readonly groups?: readonly string[];
}

/**
 * One API warning: a value of the HTTP `Warning` response header (RFC 7234 section 5.5), which the
 * Kubernetes API server sends as `299 - "text"` for deprecated APIs, unknown fields, and the like.
 */
export interface ApiWarning {
  /** The warn-code; Kubernetes always sends 299 ("miscellaneous persistent warning"). */
  readonly code: number;
  /** The warn-agent; `-` when the server does not name itself. */
  readonly agent: string;
  /** The warning text, unquoted. */
  readonly text: string;
}

/** Receives the API warnings of requests. It must not throw; if it does, the error is ignored. */
export type WarningHandler = (warning: ApiWarning) => void;

export interface KubeRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Default `application/json`. */
  readonly accept?: string;
  readonly signal?: AbortSignal;
}

/**
 * A dynamic Kubernetes client over plain-JSON objects: what plugins need to talk to the cluster.
 * Failed requests throw an error carrying the API server's Status (code, reason, message).
 * `@olm/controller-runtime`'s `KubeClient` class implements it.
 */
export interface KubeClient {
  /** The namespace of the client's context (the kubeconfig's), or `default`. */
  readonly defaultNamespace: string;
  /** Discovery for a kind; throws when the server does not serve it. */
  resourceFor(kind: ObjectKind): Promise<ResourceInfo>;
  /** The URL path of a collection (no name) or an object, optionally a subresource of it: for `watch` and `request`. */
  pathFor(reference: ObjectKind & { readonly name?: string; readonly namespace?: string }, subresource?: string): Promise<string>;
  /**
   * The object, of the type its reference's kind carries (`{ ...Kinds.deployment, name, namespace }`), or
   * a plain `CachedObject` for a kind without one. The second form, with the type given, is for callers
   * whose kind is only known at run time.
   */
  get<R extends KubeObjectReference>(reference: R): Promise<ObjectOfKind<R>>;
  get<T extends CachedObject>(reference: KubeObjectReference): Promise<T>;
  /** Like `get`, but undefined when the object does not exist. */
  find<R extends KubeObjectReference>(reference: R): Promise<ObjectOfKind<R> | undefined>;
  find<T extends CachedObject>(reference: KubeObjectReference): Promise<T | undefined>;
  /** A page of objects of `kind`, typed as `get` types them. */
  list<K extends ObjectKind>(kind: K, options?: ListOptions): Promise<ObjectList<ObjectOfKind<K> & CachedObject>>;
  list<T extends CachedObject>(kind: ObjectKind, options?: ListOptions): Promise<ObjectList<T>>;
  create<T extends CachedObject>(object: T, options?: { readonly fieldManager?: string }): Promise<T>;
  /** PUT the whole object; fails with 409 Conflict when `metadata.resourceVersion` is stale. */
  replace<T extends CachedObject>(object: T, options?: { readonly fieldManager?: string }): Promise<T>;
  /** PUT the object's status through the status subresource. */
  replaceStatus<T extends CachedObject>(object: T, options?: { readonly fieldManager?: string }): Promise<T>;
  patch<T extends CachedObject = CachedObject>(
    reference: KubeObjectReference,
    patch: unknown,
    options?: { readonly type?: PatchType; readonly fieldManager?: string; readonly force?: boolean; readonly subresource?: string },
  ): Promise<T>;
  /** Server-side apply as `fieldManager`; `force` takes over fields another manager owns. */
  apply<T extends CachedObject>(
    object: T,
    options: { readonly fieldManager: string; readonly force?: boolean; readonly subresource?: string },
  ): Promise<T>;
  delete(reference: KubeObjectReference, options?: { readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' }): Promise<void>;
  /** Opens a watch on `path`; `onDone` is called once when it ends (null on a clean close). Returns its closer. */
  watch(
    path: string,
    query: Readonly<Record<string, string | undefined>>,
    onEvent: (event: WatchEvent) => void,
    onDone: (error: unknown) => void,
    options?: { readonly metadataOnly?: boolean },
  ): Promise<() => void>;
  /** One raw request (JSON in, JSON out), for paths the methods above do not cover. */
  request(options: KubeRequest): Promise<unknown>;
  /** A client sharing this one's connections that hands the API warnings of its own requests to `handler`. */
  withWarningHandler(handler: WarningHandler): KubeClient;
  /** A client sharing this one's connections that acts as `user`. */
  impersonate(user: ImpersonatedUser): KubeClient;
}

/**
 * The one Kubernetes client of the process, shared by every plugin that talks to the cluster. The app
 * builds it from the kubeconfig, provides it to `boot`, and closes it after the kernel stopped.
 */
export const kubeClient = createSingleExtensionPoint<KubeClient>({
  id: 'olm.kubeClient',
  description: 'the shared Kubernetes client',
  hint: "the app provides it: boot({ provide: [provision(kubeClient, new KubeClient({ kubeconfig }))] }) with KubeClient from @olm/controller-runtime",
});
