export * from './api-intersection.js';
export * from './csv-status.js';
export * from './install-modes.js';
export * from './label-selector.js';
export * from './provided-apis.js';
export * from './target-namespaces.js';
export * from './deployment-strategy.js';
export * from './spec-hash.js';
