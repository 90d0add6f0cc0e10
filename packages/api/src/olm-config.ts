import type { Condition, KubernetesObject } from './meta.js';

export const OLMConfigKind = 'OLMConfig';
/** OLM reads the single OLMConfig named `cluster`. */
export const OLMConfigName = 'cluster';

export const OLMConfigConditionTypes = {
  DisabledCopiedCSVs: 'DisabledCopiedCSVs',
} as const;

/** Reasons of the `DisabledCopiedCSVs` condition. */
export const OLMConfigReasons = {
  CopiedCSVsEnabled: 'CopiedCSVsEnabled',
  CopiedCSVsDisabled: 'CopiedCSVsDisabled',
} as const;

/** Messages of the `DisabledCopiedCSVs` condition, and of the Event on a CSV whose copies are disabled. */
export const OLMConfigMessages = {
  copiedCsvsPresent: 'Copied CSVs are enabled and present across the cluster',
  copiedCsvMissing: 'Copied CSVs are enabled and at least one copied CSVs is missing',
  unexpectedCopiedCsvFound: 'Copied CSVs are disabled and at least one unexpected copied CSV was found for an operator installed in AllNamespace mode',
  noUnexpectedCopiedCsvs: 'Copied CSVs are disabled and no unexpected copied CSVs were found for operators installed in AllNamespace mode',
  csvCopyingDisabled: (namespace: string, name: string) => `CSV copying disabled for ${namespace}/${name}`,
} as const;

export interface Features {
  disableCopiedCSVs?: boolean;
  /** A duration in hours, minutes and seconds only (`60m`, `1h30m`); the CRD rejects `ms`, `us` and `ns`. */
  packageServerSyncInterval?: string;
  /**
   * This project's own feature, not upstream's. What an unsatisfiable resolution fails: `Subscription`
   * (the default) sets `ResolutionFailed` only on the Subscriptions in the conflict, each with its own
   * explanation, and installs the others; `Namespace` fails every Subscription of the namespace, as
   * upstream OLM does.
   */
  resolutionFailureScope?: ResolutionFailureScope;
}

export type ResolutionFailureScope = 'Subscription' | 'Namespace';

export interface OLMConfigSpec {
  features?: Features;
}

export interface OLMConfigStatus {
  conditions?: Condition[];
}

/** operators.coreos.com/v1 OLMConfig (cluster-scoped). */
export interface OLMConfig extends KubernetesObject<'operators.coreos.com/v1', 'OLMConfig'> {
  spec?: OLMConfigSpec;
  status?: OLMConfigStatus;
}
