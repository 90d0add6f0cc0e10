export { renderRegistryV1Bundle, renderedObjects, type RenderInput, type RenderedBundle, type RenderedPhase, type RenderPhaseName } from './render-bundle.js';
export { RenderErrorCodes, type RenderErrorCode } from './errors.js';
export { defaultRenderLimits, type RenderLimits } from './render-limits.js';
export { dependencyPropertyTypes } from './bundle-manifests.js';
export { targetNamespaces, watchNamespaceField } from './watch-namespace.js';
export { targetNamespacesAnnotation } from './deployments.js';
export { contentHash, maxGeneratedNameLength, nameForBaseAndSuffix, uniqueName } from './object-names.js';
export { ClusterExtensionKind, OwnerKindLabel, OwnerNameLabel, ownerLabels } from './owner-labels.js';
