export * from './api-warnings.js';
export * from './backoff.js';
export * from './controller.js';
export * from './errors.js';
export * from './event-loop-yield.js';
export * from './event-recorder.js';
export * from './indexer.js';
export * from './informer.js';
export * from './informer-cache.js';
export * from './kube-client.js';
export { parseLabelSelector } from './label-selector.js';
export * from './leader-election.js';
export * from './lease-store.js';
export * from './logger.js';
export * from './manager.js';
export * from './metrics.js';
export * from './object-key.js';
export * from './owner-mapper.js';
export * from './plugin.js';
export * from './rate-limiter.js';
export * from './semantic-equality.js';
export * from './status-update.js';
export * from './upsert-owned-fields.js';
export * from './work-queue.js';
// The reconciler and client contracts live in @olm/core; re-exported so library users need one import.
export { kubeClient } from '@olm/core';
export type {
  ImpersonatedUser,
  KubeObjectReference,
  ListOptions,
  ObjectList,
  PatchType,
  ResourceInfo,
  WatchEvent,
  CachedObject,
  ObjectKind,
  ObjectReader,
  ReconcileContext,
  Reconciler,
  ReconcilerWatch,
  ReconcileRequest,
  ReconcileResult,
} from '@olm/core';
export { metadataOnlyObject } from './metadata-only.js';
export { isNamespaceTerminating, isNamespaceTerminatingError, isTerminatingNamespace, namespaceTerminatingCause } from './namespace-termination.js';
