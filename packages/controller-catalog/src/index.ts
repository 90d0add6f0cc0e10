export * from './additional-namespaces.js';
export * from './catalog-source-spec.js';
// Moved to @olm/crd-upgrade-safety; re-exported so existing importers keep working.
export {
  checkCrdUpgrade,
  isCrdView,
  removedServedVersionMessage,
  webhookValidationWarning,
  type CrdUpgradeVerdict,
  type CrdView,
  type CustomResource,
  type ListCustomResources,
} from '@olm/crd-upgrade-safety';
export * from './install-plan-rules.js';
export * from './subscription-status.js';
export * from './bundle-steps.js';
export * from './bundle-manifests.js';
export * from './bundle-unpack-settings.js';
export { binaryQuantity, registryPod, registryService, registryServiceAccount, type RegistryPodSettings } from './registry-pod.js';
export type { RegistryServiceRouting } from './registry-service-address.js';
export * from './catalog-controller.js';
export * from './catalog-metrics.js';
export * from './catalog-source-connections.js';
export type { StepAppliedEvent } from './controller-context.js';
export { supportedStepKinds } from './install-plan-executor.js';
export * from './plugin.js';
