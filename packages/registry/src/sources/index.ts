export { createCatalogSourceTypes, type CatalogSourceTypesOptions } from './catalog-source-types.js';
export { catalogFromConfigMapData, configMapCatalogKeys } from './configmap-catalog.js';
export { createConfigMapSourceType, type ConfigMapSourceTypeOptions, type FetchConfigMap } from './configmap-source.js';
export { CatalogSourceErrorCodes } from './errors.js';
export { createFbcDirectorySourceType, fbcDirectorySourceType, type FbcDirectorySourceTypeOptions } from './fbc-directory-source.js';
export { createGrpcSourceType, type GrpcSourceTypeOptions } from './grpc-source.js';
export type { RegistryPodOptions } from './registry-pod/registry-pod-workload.js';
export type { RegistryServiceRouting } from './registry-pod/service-address.js';
