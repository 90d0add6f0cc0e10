import { OlmError } from '@olm/core';

/** Stable error codes of this package. Recognise them with `hasErrorCode` from `@olm/core`. */
export const RbacErrorCodes = {
  /** An input object lacks what it needs (`metadata.name`, `metadata.namespace`, …) or has the wrong shape. */
  invalidObject: 'OLM_RBAC_INVALID_OBJECT',
  /** The CSV has no `spec.install` (or no `spec.install.spec`). */
  missingInstallStrategy: 'OLM_RBAC_MISSING_INSTALL_STRATEGY',
  /** `spec.install.strategy` is not `deployment`, the only strategy upstream knows. */
  unsupportedInstallStrategy: 'OLM_RBAC_UNSUPPORTED_INSTALL_STRATEGY',
  /** A `permissions[]`/`clusterPermissions[]` entry has no `serviceAccountName` or its `rules` is not a list. */
  invalidPermission: 'OLM_RBAC_INVALID_PERMISSION',
  /** A rule the API server would reject: no verbs, no resources nor URLs, resources without apiGroups, … */
  invalidRule: 'OLM_RBAC_INVALID_RULE',
  /** An owned CRD/APIService entry of the CSV is malformed (name not `<plural>.<group>`, no version, …). */
  invalidApi: 'OLM_RBAC_INVALID_API',
  /** The CRD or APIService of an owned API was not passed in (it must exist to own its ClusterRoles). */
  apiObjectNotFound: 'OLM_RBAC_API_OBJECT_NOT_FOUND',
} as const;

export type RbacErrorCode = (typeof RbacErrorCodes)[keyof typeof RbacErrorCodes];

export function rbacError(code: RbacErrorCode, message: string, details: Record<string, unknown> = {}): OlmError {
  return new OlmError(code, message, { details });
}
