export { CATALOG_STORE_SOURCE_TYPE, createCatalogStoreSourceType, type CatalogStoreOptions } from './catalog-store-source-type.js';
export { createCatalogStorePlugin } from './plugin.js';
