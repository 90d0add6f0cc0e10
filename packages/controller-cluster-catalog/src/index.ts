export * from './catalog-image-limits.js';
export { ClusterCatalogErrorCodes, repositoryOf } from './catalog-source.js';
export * from './cluster-catalog-spec.js';
export * from './cluster-catalog-status.js';
export { createClusterCatalogReconciler, fieldManager } from './cluster-catalog-reconciler.js';
export * from './controller.js';
export * from './plugin.js';
export { ServedCatalogs } from './served-catalogs.js';
