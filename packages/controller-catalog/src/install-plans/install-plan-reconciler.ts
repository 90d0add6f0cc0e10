import { InstallPlanPhases, type InstallPlanStatus } from '@olm/api';
import type { CachedObject, ObjectReader, ReconcileRequest, Reconciler, ReconcilerWatch } from '@olm/core';
import { isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import type { Step } from '../bundles/bundle-steps.js';
import type { InstallPlanDeps } from './install-plan-deps.js';
import { executePlan } from './install-plan-executor.js';
import { installPlanIdentity, withInstallIdentity } from './install-plan-identity.js';
import { nextInstallPlanState, type ExecutionOutcome, type InstallPlanState } from './install-plan-rules.js';
import { formatTime } from '@olm/go-format';
import { Kinds, type InstallPlanObject } from '../kinds.js';

/**
 * InstallPlan (upstream's `syncInstallPlans`): settle whose rights it installs with (an OperatorGroup's
 * ServiceAccount, see `withInstallIdentity`), wait for approval, execute the steps, retry errors within
 * the retry timeout (a Forbidden one for ever), then Complete or Failed (both terminal).
 */
export function createInstallPlanReconciler(context: InstallPlanDeps): Reconciler {
  const rbacRetries = new RbacRetries();
  return {
    name: 'installplan',
    for: Kinds.installPlan,
    // Read from the cache: CSVs when a CRD is applied (installed-alongside annotations), OperatorGroups for
    // the installing account. No trigger: a plan waiting on either is looked at again every installingRequeueMs.
    watches: [
      { ...Kinds.clusterServiceVersion, map: () => [] },
      { ...Kinds.operatorGroup, map: () => [] },
      ...rbacRetries.watches,
    ],
    maxConcurrentReconciles: 2,
    async reconcile({ namespace = '', name }, { cache, signal }) {
      if (!cache.get(Kinds.installPlan, name, namespace)) return rbacRetries.forget(namespace, name);
      const client = context.client();
      // Read live: the cache may not have our own last status write yet.
      const plan = await client.find<InstallPlanObject>({ ...Kinds.installPlan, namespace, name });
      if (!plan) return rbacRetries.forget(namespace, name);
      const observed = plan.status;
      // The resolution that created the plan writes its steps; until then there is nothing to do.
      if (!observed?.plan?.length) return;
      if (observed.phase === InstallPlanPhases.Complete) return;
      if (observed.phase === InstallPlanPhases.Failed && !(observed.attenuatedServiceAccountRef && rbacRetries.shouldRetry(namespace, name))) return;

      const now = context.now();
      const identity = withInstallIdentity(observed, installPlanIdentity(cache, namespace), formatTime(now));
      if (!identity.proceed) {
        await writeStatus(context, namespace, name, observed, identity.status);
        return { requeueAfter: context.installingRequeueMs };
      }
      const status = identity.status;
      let state: InstallPlanState = {
        // A failed plan RBAC gave another chance runs again (upstream sets it Installing and syncs it).
        phase: status.phase === InstallPlanPhases.Failed ? InstallPlanPhases.Installing : (status.phase ?? InstallPlanPhases.None),
        approved: plan.spec?.approved === true,
        ...(status.startTime ? { startTime: status.startTime } : {}),
        ...(status.message ? { message: status.message } : {}),
        ...(status.conditions ? { conditions: status.conditions } : {}),
      };
      let steps: Step[] = observed.plan;
      if (state.phase === InstallPlanPhases.RequiresApproval) state = nextInstallPlanState(state, undefined, now, context.installPlanRetryTimeoutMs);
      if (state.phase === InstallPlanPhases.Installing) {
        rbacRetries.running(namespace, name);
        state = nextInstallPlanState(state, undefined, now, context.installPlanRetryTimeoutMs); // sets startTime
        const result = await executePlan(context, { ...plan, status }, steps, signal, cache);
        steps = result.steps;
        if (!result.aborted) {
          const outcome: ExecutionOutcome = result.error
            ? { kind: 'error', message: result.error.message, forbidden: result.error.forbidden }
            : { kind: 'done', waitingForApi: result.waitingForApi };
          state = nextInstallPlanState(state, outcome, now, context.installPlanRetryTimeoutMs);
          if (state.phase === InstallPlanPhases.Failed) void context.events().warning(plan, 'InstallPlanFailed', state.message ?? '');
        }
      }

      const next: InstallPlanStatus = { ...status, phase: state.phase, plan: steps };
      if (state.startTime) next.startTime = state.startTime;
      if (state.conditions) next.conditions = [...state.conditions];
      if (state.message) next.message = state.message;
      else delete next.message;
      await writeStatus(context, namespace, name, observed, next);
      if (state.phase === InstallPlanPhases.Installing) return { requeueAfter: context.installingRequeueMs };
      return undefined;
    },
  };
}

/**
 * Upstream's `triggerInstallPlanRetry`: a scoped plan (one with `status.attenuatedServiceAccountRef`)
 * that failed, perhaps for want of rights, is tried again when a Role, RoleBinding or ServiceAccount
 * of its namespace changes, since that may have granted them. Changes are counted per namespace and
 * compared with the count when the plan last ran, so a change seen before the plan's own status reached
 * the cache still counts.
 */
class RbacRetries {
  /** RBAC changes seen per namespace. */
  private readonly changes = new Map<string, number>();
  /** Per plan (`namespace/name`): the namespace's change count when it last ran. */
  private readonly lastRun = new Map<string, number>();

  readonly watches: readonly ReconcilerWatch[] = [
    { ...Kinds.role, map: (object, cache) => this.changed(object, cache) },
    { ...Kinds.roleBinding, map: (object, cache) => this.changed(object, cache) },
    { ...Kinds.serviceAccount, map: (object, cache) => this.changed(object, cache) },
  ];

  /** Whether a failed plan gets another chance: its namespace's RBAC changed since it last ran. */
  shouldRetry(namespace: string, name: string): boolean {
    return (this.changes.get(namespace) ?? 0) > (this.lastRun.get(`${namespace}/${name}`) ?? 0);
  }

  /** The plan runs now: only later RBAC changes give it another chance. */
  running(namespace: string, name: string): void {
    this.lastRun.set(`${namespace}/${name}`, this.changes.get(namespace) ?? 0);
  }

  forget(namespace: string, name: string): void {
    this.lastRun.delete(`${namespace}/${name}`);
  }

  private changed(object: CachedObject, cache: ObjectReader): ReconcileRequest[] {
    const namespace = object.metadata?.namespace;
    if (!namespace) return [];
    this.changes.set(namespace, (this.changes.get(namespace) ?? 0) + 1);
    return cache.list(Kinds.installPlan, { namespace })
      .filter((plan) => plan.status?.phase === InstallPlanPhases.Failed && plan.status.attenuatedServiceAccountRef)
      .map((plan) => ({ namespace, name: plan.metadata?.name ?? '' }));
  }
}

/** Writes `next` through the status subresource unless it means what `observed` does. */
async function writeStatus(context: InstallPlanDeps, namespace: string, name: string, observed: InstallPlanStatus, next: InstallPlanStatus): Promise<void> {
  if (isSemanticallyEqual(next, observed)) return;
  await updateStatus<InstallPlanObject>(
    context.client(),
    { ...Kinds.installPlan, namespace, name },
    (latest) => {
      latest.status = next;
    },
    { fieldManager: context.fieldManager },
  );
}
