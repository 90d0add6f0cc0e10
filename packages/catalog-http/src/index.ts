export * from './catalog-objects.js';
export * from './catalog-index.js';
export * from './content-store.js';
export * from './conditional-request.js';
export * from './request-limiter.js';
export * from './catalog-http-handler.js';
export * from './catalog-http-server.js';
