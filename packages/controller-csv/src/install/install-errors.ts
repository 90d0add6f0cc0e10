import { OlmError } from '@olm/core';
import { apiStatusCode, apiStatusMessage } from '@olm/controller-runtime';

/**
 * As upstream's deployment installer: a Forbidden answer while installing is its unrecoverable
 * `InsufficentPermissions` error, "install strategy failed: <the server's message>". The CSV then waits,
 * failed `InstallComponentFailedNoRetry`, until RBAC changes.
 */
export async function insufficientPermissionsAreFinal(install: () => Promise<void>): Promise<void> {
  try {
    await install();
  } catch (error) {
    if (apiStatusCode(error) !== 403) throw error;
    throw Object.assign(new OlmError('OLM_CSV_INSUFFICIENT_PERMISSIONS', `install strategy failed: ${apiStatusMessage(error)}`, { cause: error }), {
      reason: 'InsufficentPermissions',
      unrecoverable: true,
    });
  }
}
