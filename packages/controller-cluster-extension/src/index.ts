export { CatalogContentCache, defaultCatalogContentLimits, type CatalogContentLimits, type ServedCatalog } from './catalog-content.js';
export { createClusterExtensionReconciler, fieldManager, type ClusterExtensionReconcilerParts } from './cluster-extension-reconciler.js';
export { desiredStatus, maxConditionMessageLength } from './cluster-extension-status.js';
export * from './controller.js';
export { ClusterExtensionErrorCodes } from './errors.js';
export { formatMissingPermissions, type ExtensionApplier, type ExtensionOwner, type MissingPermission, type ServiceAccountReference } from './extension-applier.js';
export { ResolutionError, resolveBundle, type CatalogCandidate, type Resolution, type ResolveInput } from './resolve-bundle.js';
export * from './plugin.js';
