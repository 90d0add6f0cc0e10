import type { Reconciler } from '@olm/core';
import type { KubeClient } from '@olm/core';
import type { CatalogLimits } from '@olm/registry';
import { CatalogContentCache, type CatalogContentLimits } from './catalog-content.js';
import { createClusterExtensionReconciler } from './cluster-extension-reconciler.js';
import type { ExtensionApplier } from './extension-applier.js';

export interface ClusterExtensionControllerOptions {
  /** The CA (PEM) that catalogd's HTTPS server is trusted by, or a function giving it when it is known later (same process). */
  readonly catalogCa?: string | (() => string | undefined);
  /** Bounds of catalog content read over catalogd's HTTP API (`defaultCatalogContentLimits` for those unset). */
  readonly catalogContentLimits?: Partial<CatalogContentLimits>;
  /** Bounds of the file-based catalog, as the registry's loader applies them (`defaultCatalogLimits`). */
  readonly catalogLimits?: Partial<CatalogLimits>;
  /** ClusterExtensions reconciled at once. Default 4. */
  readonly maxConcurrentReconciles?: number;
  readonly now?: () => Date;
}

export interface ClusterExtensionController {
  /** The `cluster-extension` reconciler, for `manager.add` or the `reconcilers` point. */
  readonly reconcilers: readonly Reconciler[];
}

/** The ClusterExtension controller as a library: its reconciler over a client, an applier and a cache of catalog content. */
export function createClusterExtensionController(options: ClusterExtensionControllerOptions & { readonly client: KubeClient; readonly applier: ExtensionApplier }): ClusterExtensionController {
  const content = new CatalogContentCache({
    ...(options.catalogCa !== undefined ? { ca: options.catalogCa } : {}),
    ...(options.catalogContentLimits ? { limits: options.catalogContentLimits } : {}),
    ...(options.catalogLimits ? { catalogLimits: options.catalogLimits } : {}),
  });
  const reconciler = createClusterExtensionReconciler({
    client: () => options.client,
    applier: () => options.applier,
    content,
    now: options.now ?? (() => new Date()),
    ...(options.maxConcurrentReconciles !== undefined ? { maxConcurrentReconciles: options.maxConcurrentReconciles } : {}),
  });
  return { reconcilers: [reconciler] };
}
