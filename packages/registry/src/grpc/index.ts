export * from './api-types.js';
export { createRegistryClient, defaultRegistryStreamLimits, type RegistryCallOptions, type RegistryHealthStatus, type RegistryClient, type RegistryClientOptions } from './client.js';
export { apiBundleToCatalogBundle, loadCatalogFromRegistry, type LoadFromRegistryOptions } from './catalog-from-registry.js';
export { RegistryGrpcErrorCodes } from './errors.js';
export { catalogBundleToApiBundle, synthesiseCsvFromMetadata } from './model-to-api.js';
export { protoDirectory, protoLoaderOptions, registryProtoPaths } from './proto.js';
export { registryContentDigest, type RegistryDigestOptions } from './registry-digest.js';
export { createRegistryIndex, type RegistryIndex } from './registry-index.js';
export { startRegistryServer, type RegistryServer, type RegistryServerOptions } from './server.js';
