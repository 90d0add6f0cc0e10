import type { Condition, KubernetesObject, Time } from './meta.js';

export const OperatorConditionKind = 'OperatorCondition';

/** Condition types operators report (`spec.conditions`) and admins override (`spec.overrides`). */
export const OperatorConditionTypes = {
  Upgradeable: 'Upgradeable',
} as const;

/** Environment variable OLM sets on operator deployments, naming their OperatorCondition. */
export const OperatorConditionEnvVarName = 'OPERATOR_CONDITION_NAME';

/** An admin's override of a condition; unlike other conditions it may omit `lastTransitionTime`. */
export type OperatorConditionOverride = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: Time };

export interface OperatorConditionSpec {
  serviceAccounts?: string[];
  deployments?: string[];
  overrides?: OperatorConditionOverride[];
  /** v2 only. */
  conditions?: Condition[];
}

export interface OperatorConditionStatus {
  conditions?: Condition[];
}

/** operators.coreos.com/v2 OperatorCondition (`condition`); v1 is also served. */
export interface OperatorCondition extends KubernetesObject<'operators.coreos.com/v2' | 'operators.coreos.com/v1', 'OperatorCondition'> {
  spec?: OperatorConditionSpec;
  status?: OperatorConditionStatus;
}
