import { OlmError } from '@olm/core';
import { apiStatusCode, apiStatusMessage, apiStatusReason } from '@olm/controller-runtime';

export type StepAction = 'create' | 'update' | 'get';

/** How upstream's step ensurer names each step's object when a request for it fails (`errorwrap.Wrapf` texts). */
function stepErrorPrefix(action: StepAction, kind: string, name: string): string {
  switch (kind) {
    case 'ClusterServiceVersion':
      return `error creating csv ${name}`;
    case 'Subscription':
      return `error creating subscription ${name}`;
    case 'ServiceAccount':
      if (action === 'get') return `error getting older version of service account: ${name}`;
      return `error ${action === 'create' ? 'creating' : 'updating'} service account: ${name}`;
    // upstream says "updating" for these even when the create failed
    case 'Service':
      return `error updating service: ${name}`;
    case 'ConfigMap':
      return `error updating configmap: ${name}`;
    case 'Secret':
    case 'BundleSecret':
      return `error updating secret: ${name}`;
    case 'ClusterRole':
    case 'ClusterRoleBinding':
    case 'Role':
    case 'RoleBinding':
      if (action !== 'get') return `error ${action === 'create' ? 'creating' : 'updating'} ${kind.toLowerCase()} ${name}`;
      break;
    default:
      break;
  }
  return `error ${action === 'create' ? 'creating' : action === 'update' ? 'updating' : 'getting'} unstructured object ${name}`;
}

/**
 * A failed request for a step, worded as upstream's step ensurer reports it: its prefix and the API
 * server's own message (`error creating clusterrole x: clusterroles.rbac.authorization.k8s.io is
 * forbidden: User "system:serviceaccount:ns:sa" cannot create …`). The HTTP status stays readable
 * (`apiStatusCode`), so a Forbidden keeps the plan retrying.
 */
export function stepError(action: StepAction, kind: string, name: string, error: unknown): OlmError {
  const statusCode = apiStatusCode(error);
  return new OlmError('OLM_CATALOG_STEP_FAILED', `${stepErrorPrefix(action, kind, name)}: ${apiStatusMessage(error)}`, {
    cause: error,
    details: { ...(statusCode !== undefined ? { statusCode } : {}), reason: apiStatusReason(error), kind, name },
  });
}
