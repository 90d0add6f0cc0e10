import { OlmError } from '@olm/core';

/** Why a bundle cannot be rendered; every failure of `renderRegistryV1Bundle` is an `OlmError` with one of these codes. */
export const RenderErrorCodes = {
  /** The input itself is wrong: a missing install namespace, a bad ClusterExtension name or watchNamespace. */
  invalidInput: 'OLM_RENDER_INVALID_INPUT',
  /** The bundle's manifests are malformed (no CSV, a field of the wrong shape, duplicate names, …). */
  invalidBundle: 'OLM_RENDER_INVALID_BUNDLE',
  /** The bundle asks for something OLM v1 does not do (webhooks, API services, dependencies, a kind it cannot place). */
  unsupportedBundle: 'OLM_RENDER_UNSUPPORTED_BUNDLE',
  /** The bundle's install modes do not allow the requested watch namespace. */
  unsupportedInstallMode: 'OLM_RENDER_UNSUPPORTED_INSTALL_MODE',
  /** The bundle is over one of the render limits. */
  limitExceeded: 'OLM_RENDER_LIMIT_EXCEEDED',
} as const;

export type RenderErrorCode = (typeof RenderErrorCodes)[keyof typeof RenderErrorCodes];

export function renderError(code: RenderErrorCode, message: string, details: Record<string, unknown> = {}): OlmError {
  return new OlmError(code, message, { details });
}
