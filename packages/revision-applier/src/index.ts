export { createRevisionApplier, defaultRevisionLimits } from './revision-applier.js';
export { RevisionErrorCodes, type RevisionErrorCode } from './errors.js';
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
