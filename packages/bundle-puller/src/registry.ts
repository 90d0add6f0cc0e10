// The registry client and image reading without the kernel plugin and the Kubernetes client, for
// tools that only talk to registries (`@olm/bundle-authoring`, the `olm` CLI's image commands).
export * from './bundle-image-errors.js';
export * from './bundle-image-limits.js';
export * from './image-reference.js';
export * from './layer-entries.js';
export * from './oci-content.js';
export * from './oci-registry-client.js';
export * from './oci-registry-artifacts.js';
export * from './oci-registry-push.js';
export * from './registry-credentials.js';
export * from './oci-registry-transfer.js';
