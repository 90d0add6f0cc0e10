export * from './package-manifest.js';
export { parseCsv, relatedImagesOf, type ParsedCsv } from './csv-description.js';
export { buildPackageManifest, withDefaultOsArchLabels, type BuiltPackageManifest, type CatalogSourceSummary, type RegistryPackage } from './build-package-manifest.js';
export { readRegistry, type PackageQueries, type RegistryContents } from './read-registry.js';
export { PackageManifestStore, type ManifestEvent, type ManifestEventType, type ManifestQuery, type PackageManifestStoreOptions } from './package-manifest-store.js';
export { CatalogSourceSync, catalogSourceSummary, type CatalogSourceSyncOptions } from './catalog-source-sync.js';
export { apiResourceList, createApiHandler, type ApiHandlerOptions } from './api-handler.js';
export { manifestTable } from './table.js';
export {
  apiServiceObjects,
  defaultPackageServerServiceName,
  packageServerApiServiceName,
  registerApiService,
  unregisterApiService,
  waitForApiService,
  type ApiServiceRegistration,
} from './api-service.js';
export { followOlmConfigSyncInterval, syncIntervalOf, type OlmConfigSyncIntervalOptions } from './olm-config-sync-interval.js';
export { indexQueries, readSourceTypeCatalog } from './source-type-catalog.js';
export { selfSignedCertificate, type SelfSignedCertificateOptions, type ServingCertificate } from '@olm/serving-certificate';
export { startPackageServer, type PackageServer, type PackageServerAccessOptions, type PackageServerOptions } from './package-server.js';
export * from './plugin.js';
