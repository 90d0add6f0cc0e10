export { isCrdView, type CrdVersion, type CrdView } from './crd-view.js';
export {
  checkCrdUpgrade,
  removedServedVersionMessage,
  webhookValidationWarning,
  type CrdUpgradeVerdict,
  type CustomResource,
  type ListCustomResources,
} from './existing-resources-check.js';
