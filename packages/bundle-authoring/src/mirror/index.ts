export { mirrorCatalog, type MirrorCatalogOptions, type MirrorProgress, type MirrorResult, type MirrorSource, type MirrorTarget } from './mirror-catalog.js';
export { defaultMirrorLimits, mirrorLimitFlags, MirrorErrorCodes, type MirrorLimits } from './mirror-limits.js';
export { type MirrorFilter } from './filter-catalog.js';
export { type MirroredImage } from './mirror-references.js';
export { catalogObjectName, catalogObjectsYaml, mirrorConfiguration } from './mirror-config.js';
