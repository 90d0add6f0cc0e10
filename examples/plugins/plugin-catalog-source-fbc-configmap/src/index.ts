export { createFbcConfigMapSourceType, FBC_CONFIGMAP_SOURCE_TYPE } from './fbc-configmap-source-type.js';
export { fbcConfigMapWorkload } from './fbc-configmap-workload.js';
export { createFbcConfigMapPlugin } from './plugin.js';
