import type { Condition, KubernetesObject } from './meta.js';

export const OLMConfigKind = 'OLMConfig';
/** OLM reads the single OLMConfig named `cluster`. */
export const OLMConfigName = 'cluster';

export const OLMConfigConditionTypes = {
  DisabledCopiedCSVs: 'DisabledCopiedCSVs',
} as const;

export interface Features {
  disableCopiedCSVs?: boolean;
  /** A duration in hours, minutes and seconds only (`60m`, `1h30m`); the CRD rejects `ms`, `us` and `ns`. */
  packageServerSyncInterval?: string;
}

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
