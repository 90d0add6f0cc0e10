import {
  ClusterExtensionCleanupFinalizer,
  ClusterExtensionSourceTypes,
  CrdUpgradeSafetyEnforcements,
  Kinds,
  type BundleMetadata,
  type ClusterExtension,
  type ClusterExtensionStatus,
} from '@olm/api';
import { renderRegistryV1Bundle, type RenderedBundle } from '@olm/bundle-render';
import { describeError, type CachedObject, type ReconcileContext, type Reconciler, type ReconcileResult } from '@olm/core';
import type { KubeClient } from '@olm/core';
import { isNotFound, updateObject, writeStatusIfChanged } from '@olm/controller-runtime';
import type { CatalogContentCache } from './catalog-content.js';
import { selectCatalogs } from './catalog-selection.js';
import { desiredStatus, type DeprecationFacts, type Progress, type StatusOutcome } from './cluster-extension-status.js';
import { crdUpgradeViolations } from './crd-preflight.js';
import { formatMissingPermissions, type ExtensionApplier, type ExtensionOwner } from './extension-applier.js';
import { ResolutionError, resolveBundle, type CatalogCandidate, type Resolution } from './resolve-bundle.js';

export const fieldManager = 'operator-controller';

/** What the reconciler needs from its controller. */
export interface ClusterExtensionReconcilerParts {
  readonly client: () => KubeClient;
  readonly applier: () => ExtensionApplier;
  readonly content: CatalogContentCache;
  readonly now: () => Date;
  /** ClusterExtensions reconciled at once (a slow catalog or apply of one never holds up the others). Default 4. */
  readonly maxConcurrentReconciles?: number;
  /** How soon an apply that waits (CRDs not Established, prunes pending) is looked at again. Default 2 s. */
  readonly rollingOutRequeueMs?: number;
}

type ExtensionObject = CachedObject & ClusterExtension & { metadata: ClusterExtension['metadata'] & { name: string; uid: string } };

/** A failure that ends the reconcile with a condition; `retry` throws afterwards so the runtime backs off. */
class Stop extends Error {
  constructor(
    readonly progress: Progress & { readonly message: string },
    readonly deprecation: DeprecationFacts,
  ) {
    super(progress.message);
  }
}

/**
 * The ClusterExtension controller (upstream operator-controller's `clusterextension_controller.go`):
 * finalizer, resolution over the served ClusterCatalogs, rendering, CRD upgrade safety, the
 * ServiceAccount's preflight, apply as a revision, status; deletion uninstalls, then drops the
 * finalizer. Every failure is a condition on its own ClusterExtension, retried with backoff.
 */
export function createClusterExtensionReconciler(parts: ClusterExtensionReconcilerParts): Reconciler {
  return {
    name: 'cluster-extension',
    for: Kinds.clusterExtension,
    // any catalog change may change what resolves
    watches: [{ ...Kinds.clusterCatalog, map: (_catalog, cache) => cache.list(Kinds.clusterExtension).map((object) => ({ name: object.metadata!.name! })) }],
    maxConcurrentReconciles: parts.maxConcurrentReconciles ?? 4,
    async reconcile({ name }, context) {
      let extension = context.cache.get(Kinds.clusterExtension, name) as ExtensionObject | undefined;
      if (!extension) return;
      const owner: ExtensionOwner = { name, uid: extension.metadata.uid };
      if (extension.metadata.deletionTimestamp) return finalize(parts, extension, owner);
      extension = await ensureFinalizer(parts, extension);
      if (!extension) return;
      return install(parts, extension, owner, context);
    },
  };
}

/** Uninstalls everything the revisions applied, then lets the ClusterExtension go. */
async function finalize(parts: ClusterExtensionReconcilerParts, extension: ExtensionObject, owner: ExtensionOwner): Promise<ReconcileResult | void> {
  if (!extension.metadata.finalizers?.includes(ClusterExtensionCleanupFinalizer)) return;
  const result = await parts.applier().uninstall(owner);
  if (!result.complete) return { requeueAfter: parts.rollingOutRequeueMs ?? 2000 };
  await changeFinalizer(parts, extension.metadata.name, false);
}

async function ensureFinalizer(parts: ClusterExtensionReconcilerParts, extension: ExtensionObject): Promise<ExtensionObject | undefined> {
  if (extension.metadata.finalizers?.includes(ClusterExtensionCleanupFinalizer)) return extension;
  return changeFinalizer(parts, extension.metadata.name, true);
}

async function changeFinalizer(parts: ClusterExtensionReconcilerParts, name: string, present: boolean): Promise<ExtensionObject | undefined> {
  try {
    return await updateObject<ExtensionObject>(
      parts.client(),
      { ...Kinds.clusterExtension, name },
      (live) => {
        const finalizers = live.metadata.finalizers ?? [];
        if (finalizers.includes(ClusterExtensionCleanupFinalizer) === present) return false;
        live.metadata.finalizers = present ? [...finalizers, ClusterExtensionCleanupFinalizer] : finalizers.filter((item) => item !== ClusterExtensionCleanupFinalizer);
        return true;
      },
      { fieldManager },
    );
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Resolve, render, check, apply; the status says how far it got. */
async function install(parts: ClusterExtensionReconcilerParts, extension: ExtensionObject, owner: ExtensionOwner, context: ReconcileContext): Promise<ReconcileResult | void> {
  const noCatalogData: DeprecationFacts = { catalogPackage: undefined, channels: extension.spec.source?.catalog?.channels ?? [] };
  let installed: BundleMetadata | undefined;
  try {
    // Inside the try: an unreadable revision record must become a condition, not a silent retry loop.
    const current = await parts.applier().installed(owner);
    installed = current ? { ...current.bundle } : undefined;
    const resolution = await resolve(parts, extension, installed, context);
    const deprecation: DeprecationFacts = { catalogPackage: resolution.package, channels: noCatalogData.channels };
    const rendered = render(extension, resolution, deprecation);
    const outcome = await applyResolved(parts, extension, owner, resolution, rendered, deprecation, installed);
    await writeStatus(parts, extension, outcome);
    if (outcome.progress.state === 'rolling-out') return { requeueAfter: parts.rollingOutRequeueMs ?? 2000 };
  } catch (error) {
    const stop = error instanceof Stop ? error : new Stop({ state: 'retrying', message: describeError(error) }, noCatalogData);
    await writeStatus(parts, extension, { installed, progress: stop.progress, deprecation: stop.deprecation });
    if (stop.progress.state === 'retrying') throw error;
  }
}

async function resolve(parts: ClusterExtensionReconcilerParts, extension: ExtensionObject, installed: BundleMetadata | undefined, context: ReconcileContext): Promise<Resolution> {
  const source = extension.spec.source;
  const channels = source?.catalog?.channels ?? [];
  const unknown: DeprecationFacts = { catalogPackage: undefined, channels };
  if (source?.sourceType !== ClusterExtensionSourceTypes.catalog || !source.catalog) {
    throw new Stop({ state: 'blocked', message: `unsupported source type ${JSON.stringify(source?.sourceType ?? '')}: only "Catalog" with spec.source.catalog is served` }, unknown);
  }
  const filter = source.catalog;
  let selected;
  try {
    selected = selectCatalogs(context.cache, filter.selector);
  } catch (error) {
    throw new Stop({ state: 'blocked', message: `desired catalog selector is invalid: ${describeError(error)}` }, unknown);
  }
  parts.content.retain(new Set(context.cache.list(Kinds.clusterCatalog).map((catalog) => catalog.metadata!.name!)));
  const candidates: CatalogCandidate[] = [];
  for (const catalog of selected) {
    try {
      candidates.push({ name: catalog.name, priority: catalog.priority, catalog: await parts.content.get(catalog, context.signal) });
    } catch (error) {
      throw new Stop({ state: 'retrying', message: `error walking catalogs: error getting package "${filter.packageName}" from catalog "${catalog.name}": ${describeError(error)}` }, unknown);
    }
  }
  try {
    return resolveBundle(candidates, {
      packageName: filter.packageName,
      ...(filter.version ? { versionRange: filter.version } : {}),
      channels,
      ...(filter.upgradeConstraintPolicy ? { policy: filter.upgradeConstraintPolicy } : {}),
      ...(installed ? { installed } : {}),
    });
  } catch (error) {
    if (!(error instanceof ResolutionError)) throw error;
    throw new Stop({ state: error.terminal ? 'blocked' : 'retrying', message: error.message }, { catalogPackage: error.catalogPackage, channels });
  }
}

/** The registry+v1 bundle as plain manifests; a bundle that cannot be rendered here needs another version or config. */
function render(extension: ExtensionObject, resolution: Resolution, deprecation: DeprecationFacts): RenderedBundle {
  const catalog = resolution.catalog;
  const watchNamespace = extension.spec.config?.inline?.watchNamespace;
  try {
    return renderRegistryV1Bundle({
      bundle: resolution.bundle,
      manifests: catalog.bundleObjects(resolution.bundle),
      installNamespace: extension.spec.namespace,
      ...(typeof watchNamespace === 'string' ? { watchNamespace } : {}),
      extensionName: extension.metadata.name,
    });
  } catch (error) {
    throw new Stop({ state: 'blocked', message: forResolved(describeError(error), resolution) }, deprecation);
  }
}

/** CRD upgrade safety (Strict), the ServiceAccount's preflight (nothing written while it lacks a permission), then the apply. */
async function applyResolved(
  parts: ClusterExtensionReconcilerParts,
  extension: ExtensionObject,
  owner: ExtensionOwner,
  resolution: Resolution,
  rendered: RenderedBundle,
  deprecation: DeprecationFacts,
  installed: BundleMetadata | undefined,
): Promise<StatusOutcome> {
  const enforcement = extension.spec.install?.preflight?.crdUpgradeSafety?.enforcement ?? CrdUpgradeSafetyEnforcements.strict;
  if (enforcement === CrdUpgradeSafetyEnforcements.strict) {
    const violations = await crdUpgradeViolations(parts.client(), rendered);
    if (violations) throw new Stop({ state: 'retrying', message: forResolved(violations, resolution) }, deprecation);
  }
  const serviceAccount = { namespace: extension.spec.namespace, name: extension.spec.serviceAccount?.name ?? '' };
  const missing = await parts.applier().preflight({ owner, serviceAccount, rendered });
  if (missing.length > 0) throw new Stop({ state: 'retrying', message: forResolved(formatMissingPermissions(missing), resolution) }, deprecation);
  const { bundle } = resolution;
  let result;
  try {
    result = await parts.applier().apply({ owner, serviceAccount, bundle: { name: bundle.name, version: bundle.version, ...(bundle.image ? { image: bundle.image } : {}) }, rendered });
  } catch (error) {
    throw new Stop({ state: 'retrying', message: forResolved(describeError(error), resolution) }, deprecation);
  }
  if (!result.complete) return { installed, progress: { state: 'rolling-out', message: result.message }, deprecation };
  return { installed: { name: bundle.name, version: bundle.version }, installedFrom: bundle.image || bundle.name, progress: { state: 'done' }, deprecation };
}

/** Upstream's wrapping of an error about the resolved bundle. */
function forResolved(message: string, resolution: Resolution): string {
  return `${message} for resolved bundle ${JSON.stringify(resolution.bundle.name)} with version ${JSON.stringify(resolution.bundle.version)}`;
}

/** Writes the status when the outcome changes it (conflicts retried on the latest object). */
async function writeStatus(parts: ClusterExtensionReconcilerParts, extension: ExtensionObject, outcome: StatusOutcome): Promise<void> {
  const now = parts.now().toISOString().replace(/\.\d+Z$/, 'Z');
  const desired = (live: ExtensionObject): ClusterExtensionStatus => desiredStatus(live.status, outcome, live.metadata.generation ?? 0, now);
  await writeStatusIfChanged(parts.client(), { ...Kinds.clusterExtension, name: extension.metadata.name }, extension, desired, { fieldManager });
}
