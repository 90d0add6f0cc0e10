// Hostile registries for tests and benchmarks of registry clients (not part of the main entry point).
export { startEndlessRegistry, type EndlessRegistry, type EndlessRegistryCounts } from './endless-registry.js';
export { expandingBundleDocument, expandingCatalogFile, expandingPackageDocument } from './hostile-catalogs.js';
