import type { ConditionStatus, KubernetesObject, ObjectReference, Time } from './meta.js';

export const InstallPlanKind = 'InstallPlan';

/** `spec.approval` of InstallPlans and `spec.installPlanApproval` of Subscriptions (empty behaves as Automatic). */
export const Approvals = {
  Automatic: 'Automatic',
  Manual: 'Manual',
} as const;
export type Approval = (typeof Approvals)[keyof typeof Approvals];

/** InstallPlan phases. `Planning` is declared upstream but never set by OLM v0. */
export const InstallPlanPhases = {
  None: '',
  Planning: 'Planning',
  RequiresApproval: 'RequiresApproval',
  Installing: 'Installing',
  Complete: 'Complete',
  Failed: 'Failed',
} as const;
export type InstallPlanPhase = (typeof InstallPlanPhases)[keyof typeof InstallPlanPhases];

export const InstallPlanConditionTypes = {
  Resolved: 'Resolved',
  Installed: 'Installed',
} as const;
export type InstallPlanConditionType = (typeof InstallPlanConditionTypes)[keyof typeof InstallPlanConditionTypes];

export const InstallPlanReasons = {
  PlanUnknown: 'PlanUnknown',
  InstallCheckFailed: 'InstallCheckFailed',
  DependencyConflict: 'DependenciesConflict',
  ComponentFailed: 'InstallComponentFailed',
} as const;
export type InstallPlanConditionReason = (typeof InstallPlanReasons)[keyof typeof InstallPlanReasons];

/** `status.plan[].status`. Note the value `WaitingForApi` (constant `WaitingForAPI`). */
export const StepStatuses = {
  Unknown: 'Unknown',
  NotPresent: 'NotPresent',
  Present: 'Present',
  Created: 'Created',
  NotCreated: 'NotCreated',
  WaitingForAPI: 'WaitingForApi',
  UnsupportedResource: 'UnsupportedResource',
} as const;
export type StepStatus = (typeof StepStatuses)[keyof typeof StepStatuses];

export const BundleLookupConditionTypes = {
  BundleLookupPending: 'BundleLookupPending',
  BundleLookupNotPersisted: 'BundleLookupNotPersisted',
} as const;
export type BundleLookupConditionType = (typeof BundleLookupConditionTypes)[keyof typeof BundleLookupConditionTypes];

/** Message of the error for InstallPlans with unsupported or broken steps. */
export const ErrInvalidInstallPlanMessage = 'the InstallPlan contains invalid data';

export interface InstallPlanSpec {
  source?: string;
  sourceNamespace?: string;
  clusterServiceVersionNames: string[];
  approval: Approval | (string & {});
  approved: boolean;
  generation?: number;
}

export interface InstallPlanCondition {
  type?: InstallPlanConditionType | (string & {});
  status?: ConditionStatus;
  lastUpdateTime?: Time;
  lastTransitionTime?: Time;
  reason?: InstallPlanConditionReason | (string & {});
  message?: string;
}

export interface StepResource {
  sourceName: string;
  sourceNamespace: string;
  group: string;
  version: string;
  kind: string;
  name: string;
  manifest?: string;
}

export interface Step {
  resolving: string;
  resource: StepResource;
  optional?: boolean;
  status: StepStatus;
}

export interface BundleLookupCondition {
  type: BundleLookupConditionType | (string & {});
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastUpdateTime?: Time;
  lastTransitionTime?: Time;
}

export interface BundleLookup {
  path: string;
  identifier: string;
  replaces: string;
  catalogSourceRef: ObjectReference;
  conditions?: BundleLookupCondition[];
  properties?: string;
}

export interface InstallPlanStatus {
  phase: InstallPlanPhase;
  conditions?: InstallPlanCondition[];
  catalogSources: string[];
  plan?: Step[];
  bundleLookups?: BundleLookup[];
  attenuatedServiceAccountRef?: ObjectReference;
  startTime?: Time;
  message?: string;
}

/** operators.coreos.com/v1alpha1 InstallPlan (`ip`). */
export interface InstallPlan extends KubernetesObject<'operators.coreos.com/v1alpha1', 'InstallPlan'> {
  spec: InstallPlanSpec;
  status?: InstallPlanStatus;
}
