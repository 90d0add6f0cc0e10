import { OlmError } from '@olm/core';

export const CatalogSourceErrorCodes = {
  /** The CatalogSource spec lacks what its source type needs (upstream reason `SpecInvalidError`). */
  specInvalid: 'OLM_REGISTRY_SOURCE_SPEC_INVALID',
  /** The source type cannot work in this process (no ConfigMap reader, no directory loader). */
  unavailable: 'OLM_REGISTRY_SOURCE_UNAVAILABLE',
  /** A ConfigMap catalog whose content cannot be read (upstream reason `ConfigMapError`). */
  configMapInvalid: 'OLM_REGISTRY_CONFIGMAP_INVALID',
} as const;

export function specInvalid(message: string, details: Record<string, unknown> = {}): OlmError {
  return new OlmError(CatalogSourceErrorCodes.specInvalid, message, { details });
}

export function configMapInvalid(message: string, details: Record<string, unknown> = {}, cause?: unknown): OlmError {
  return new OlmError(CatalogSourceErrorCodes.configMapInvalid, message, { details, cause });
}
