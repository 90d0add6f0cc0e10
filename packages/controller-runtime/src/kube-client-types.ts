import type { KubeConfig } from '@kubernetes/client-node';
import type { CachedObject, ObjectKind } from '@olm/core';
import type { WarningHandler } from './api-warnings.js';

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

/** Identifies one object: its kind, name and (for a namespaced kind) namespace. */
export interface ObjectReference extends ObjectKind {
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
  /** Only each object's metadata (PartialObjectMetadata on the wire; see `metadataOnlyObject`). */
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

export interface KubeClientOptions {
  /** A kubeconfig document (YAML or JSON), or a loaded client-node `KubeConfig`. */
  readonly kubeconfig: string | KubeConfig;
  /** The context to use instead of the kubeconfig's current one. */
  readonly context?: string;
  /** Per-request timeout in milliseconds (watches excepted). Default 30 000. */
  readonly requestTimeoutMs?: number;
  /**
   * Called with each API warning (`Warning` response header) of this client's requests, e.g.
   * unknown fields or deprecated APIs; without it warnings are dropped. See also `withWarningHandler`.
   */
  readonly onWarning?: WarningHandler;
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
