/** How many InstallPlans upstream keeps per namespace; older generations are garbage-collected. */
export const maxInstallPlansPerNamespace = 5;
import {
  Approvals,
  InstallPlanConditionTypes,
  InstallPlanPhases,
  InstallPlanReasons,
  withCondition,
  type Approval,
  type InstallPlanCondition,
  type InstallPlanPhase,
} from '@olm/api';
import { formatTime } from '@olm/go-format';

/** Upstream's default `--install-plan-retry-timeout`. */
export const defaultInstallPlanRetryTimeoutMs = 60_000;

export interface InstallPlanRef {
  readonly name: string;
  readonly generation: number;
  readonly creationTimestamp?: string;
}

/** The next InstallPlan generation in a namespace: one more than any Subscription or InstallPlan has seen. */
export function nextInstallPlanGeneration(
  subscriptionGenerations: readonly (number | undefined)[],
  installPlanGenerations: readonly (number | undefined)[],
): number {
  return 1 + Math.max(0, ...subscriptionGenerations.map((value) => value ?? 0), ...installPlanGenerations.map((value) => value ?? 0));
}

/** A plan needs approval when any Subscription in the namespace asks for Manual approval. */
export function installPlanApproval(approvals: readonly (string | undefined)[]): Approval {
  return approvals.some((approval) => approval === Approvals.Manual) ? Approvals.Manual : Approvals.Automatic;
}

/** The InstallPlans to delete so that only the newest generations remain. */
export function installPlansToCollect(plans: readonly InstallPlanRef[], keep = maxInstallPlansPerNamespace): InstallPlanRef[] {
  if (plans.length <= keep) return [];
  const newestFirst = [...plans].sort(
    (a, b) =>
      b.generation - a.generation ||
      (b.creationTimestamp ?? '').localeCompare(a.creationTimestamp ?? '') ||
      a.name.localeCompare(b.name),
  );
  return newestFirst.slice(keep);
}

/** The Subscription OLM creates for a dependency that no Subscription asked for. */
export function dependencySubscriptionName(pkg: string, channel: string, catalog: string, catalogNamespace: string): string {
  return `${pkg}-${channel}-${catalog}-${catalogNamespace}`;
}

export interface StepLike {
  readonly resource: { readonly kind: string };
}

/** Upstream's step order: ClusterServiceVersions, then CustomResourceDefinitions, then everything else (stable). */
export function orderSteps<T extends StepLike>(steps: readonly T[]): T[] {
  const rank = (step: T) =>
    step.resource.kind === 'ClusterServiceVersion' ? 0 : step.resource.kind === 'CustomResourceDefinition' ? 1 : 2;
  return steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => rank(a.step) - rank(b.step) || a.index - b.index)
    .map(({ step }) => step);
}

export interface InstallPlanState {
  readonly phase: InstallPlanPhase;
  readonly approved: boolean;
  readonly startTime?: string;
  readonly message?: string;
  readonly conditions?: readonly InstallPlanCondition[];
}

/** What executing the plan's steps reported. */
export type ExecutionOutcome =
  | { readonly kind: 'done'; readonly waitingForApi: boolean }
  | { readonly kind: 'error'; readonly message: string; readonly forbidden?: boolean };

/**
 * The next InstallPlan phase (reference §4): approval starts installation; an execution error keeps
 * retrying within the retry timeout (or while the error is Forbidden) and then fails; success with
 * no step waiting for its API completes. Complete and Failed are terminal.
 */
export function nextInstallPlanState(
  state: InstallPlanState,
  outcome: ExecutionOutcome | undefined,
  now: Date,
  retryTimeoutMs = defaultInstallPlanRetryTimeoutMs,
): InstallPlanState {
  const time = formatTime(now);
  switch (state.phase) {
    case InstallPlanPhases.RequiresApproval:
      return state.approved ? { ...state, phase: InstallPlanPhases.Installing, message: '' } : state;
    case InstallPlanPhases.Installing: {
      const startTime = state.startTime ?? time;
      if (!outcome) return { ...state, startTime };
      if (outcome.kind === 'error') {
        const elapsed = now.getTime() - Date.parse(startTime);
        if (outcome.forbidden || elapsed < retryTimeoutMs) {
          return { ...state, startTime, message: `retrying execution due to error: ${outcome.message}` };
        }
        return {
          ...state,
          startTime,
          phase: InstallPlanPhases.Failed,
          message: outcome.message,
          conditions: withCondition<InstallPlanCondition>(state.conditions, {
            type: InstallPlanConditionTypes.Installed,
            status: 'False',
            reason: InstallPlanReasons.ComponentFailed,
            message: outcome.message,
            lastUpdateTime: time,
            lastTransitionTime: time,
          }),
        };
      }
      if (outcome.waitingForApi) return { ...state, startTime };
      return {
        ...state,
        startTime,
        phase: InstallPlanPhases.Complete,
        message: '',
        conditions: withCondition<InstallPlanCondition>(state.conditions, {
          type: InstallPlanConditionTypes.Installed,
          status: 'True',
          lastUpdateTime: time,
          lastTransitionTime: time,
        }),
      };
    }
    default:
      return state;
  }
}
