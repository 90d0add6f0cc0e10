import type { ConditionStatus, KubernetesObject, LabelSelector, ObjectReference, Time } from './meta.js';

export const OperatorKind = 'Operator';

/** A condition of one component of an Operator (`status.components.refs[].conditions`). */
export interface OperatorComponentCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastUpdateTime?: Time;
  lastTransitionTime?: Time;
}

export interface RichReference extends ObjectReference {
  conditions?: OperatorComponentCondition[];
}

export interface Components {
  labelSelector: LabelSelector | null;
  refs?: RichReference[];
}

export interface OperatorStatus {
  components?: Components;
}

/** operators.coreos.com/v1 Operator (cluster-scoped). */
export interface Operator extends KubernetesObject<'operators.coreos.com/v1', 'Operator'> {
  spec?: Record<string, never>;
  status?: OperatorStatus;
}
