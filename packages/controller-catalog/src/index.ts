export * from './catalog-source-spec.js';
export * from './crd-upgrade-safety.js';
export * from './go-duration.js';
export * from './install-plan-rules.js';
export * from './subscription-status.js';
export * from './bundle-steps.js';
