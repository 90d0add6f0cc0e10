import type { Condition, OLMConfig } from '@olm/api';
import { OLMConfigConditionTypes, OLMConfigMessages, OLMConfigReasons } from '@olm/api';

/** Upstream `CopiedCSVsAreEnabled`: true unless the OLMConfig sets `spec.features.disableCopiedCSVs: true` (no OLMConfig: true). */
export function copiedCsvsEnabled(config: Pick<OLMConfig, 'spec'> | undefined): boolean {
  return config?.spec?.features?.disableCopiedCSVs !== true;
}

/**
 * Where the copies of a CSV of an AllNamespaces operator belong: every other namespace while copies are
 * enabled, else only the protected namespaces (upstream's `--protectedCopiedCSVNamespaces`) that exist,
 * never its own. Namespaces being deleted take no copies.
 */
export function allNamespacesCopyTargets(
  operatorNamespace: string,
  namespaces: ReadonlyArray<{ readonly name: string; readonly terminating?: boolean }>,
  enabled: boolean,
  protectedNamespaces: ReadonlySet<string>,
): string[] {
  return namespaces
    .filter((namespace) => !namespace.terminating && namespace.name !== operatorNamespace && (enabled || protectedNamespaces.has(namespace.name)))
    .map((namespace) => namespace.name);
}

/**
 * The OLMConfig's `DisabledCopiedCSVs` condition (upstream `getCopiedCSVsCondition`): True only while
 * copies are disabled and no AllNamespaces operator has a copy outside the protected namespaces; False
 * otherwise, with a message telling whether some copy is missing (enabled) or unexpected (disabled).
 */
export function copiedCsvsCondition(enabled: boolean, allAsExpected: boolean): Pick<Condition, 'type' | 'status' | 'reason' | 'message'> {
  const type = OLMConfigConditionTypes.DisabledCopiedCSVs;
  if (enabled) {
    return {
      type,
      status: 'False',
      reason: OLMConfigReasons.CopiedCSVsEnabled,
      message: allAsExpected ? OLMConfigMessages.copiedCsvsPresent : OLMConfigMessages.copiedCsvMissing,
    };
  }
  return allAsExpected
    ? { type, status: 'True', reason: OLMConfigReasons.CopiedCSVsDisabled, message: OLMConfigMessages.noUnexpectedCopiedCsvs }
    : { type, status: 'False', reason: OLMConfigReasons.CopiedCSVsDisabled, message: OLMConfigMessages.unexpectedCopiedCsvFound };
}
