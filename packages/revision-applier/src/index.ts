export { createRevisionApplier } from './revision-applier.js';
export type {
  ApplyInput,
  ApplyResult,
  BundleIdentity,
  InstalledRevision,
  MissingPermission,
  PreflightInput,
  RevisionApplier,
  RevisionApplierOptions,
  RevisionOwner,
  ServiceAccountReference,
  UninstallResult,
} from './types.js';
