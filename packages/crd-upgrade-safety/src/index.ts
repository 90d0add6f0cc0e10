export { isCrdView, type CrdVersion, type CrdView } from './crd-view.js';
export {
  checkCrdUpgrade,
  removedServedVersionMessage,
  webhookValidationWarning,
  type CrdUpgradeVerdict,
  type CustomResource,
  type ListCustomResources,
} from './existing-resources-check.js';
export { checkCrdSchemaUpgrade, type CrdSchemaUpgradeOptions } from './schema-upgrade-check.js';
export {
  formatCrdSchemaViolations,
  type CrdSchemaRuleName,
  type CrdSchemaUpgradeCheck,
  type CrdSchemaViolation,
} from './violations.js';
export type { PropertyRuleName } from './property-rules.js';
export {
  CrdUpgradeSafetyError,
  CrdUpgradeSafetyErrorCodes,
  defaultSchemaDiffLimits,
  SchemaDiffBudget,
  type CrdUpgradeSafetyErrorCode,
  type SchemaDiffLimits,
} from './limits.js';
