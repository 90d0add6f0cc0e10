export * from './bundle-files.js';
export * from './bundle-image-errors.js';
export * from './bundle-unpacker.js';
export * from './image-reference.js';
export * from './oci-content.js';
export * from './oci-registry-client.js';
export { parseAuthChallenge, type AuthChallenge } from './registry-auth.js';
export * from './registry-credentials.js';
export * from './plugin.js';
