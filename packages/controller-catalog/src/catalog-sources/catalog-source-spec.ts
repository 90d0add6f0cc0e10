import type { CatalogSourceType } from '@olm/core';

/**
 * Why a CatalogSource's spec cannot be served (status reason `SpecInvalidError`): its source type's own
 * check, or upstream's `unknown sourcetype` when no booted type has that name.
 */
export function specInvalidReason(spec: Readonly<Record<string, unknown>>, sourceTypes: ReadonlyMap<string, CatalogSourceType>): string | undefined {
  const sourceType = typeof spec.sourceType === 'string' ? spec.sourceType : '';
  const type = sourceTypes.get(sourceType);
  return type ? type.validate?.(spec) : `unknown sourcetype: ${sourceType}`;
}
