import { InstallPlanPhases, type InstallPlanStatus } from '@olm/api';
import type { CachedObject, ObjectReader, ReconcileRequest, Reconciler, ReconcilerWatch } from '@olm/core';
import { isSemanticallyEqual, updateStatus } from '@olm/controller-runtime';
import type { Step } from './bundle-steps.js';
import type { CatalogControllerContext } from './controller-context.js';
import { executePlan } from './install-plan-executor.js';
import { installPlanIdentity, withInstallIdentity } from './install-plan-identity.js';
import { nextInstallPlanState, type ExecutionOutcome, type InstallPlanState } from './install-plan-rules.js';
import { formatTime } from '@olm/go-format';
import { Kinds, typedList, type InstallPlanObject } from './kinds.js';

/**
 * InstallPlan (upstream's `syncInstallPlans`): settle whose rights it installs with (an OperatorGroup's
 * ServiceAccount, see `withInstallIdentity`), wait for approval, execute the steps, retry errors within
 * the retry timeout (a Forbidden one for ever), then Complete or Failed (both terminal).
 */
export function createInstallPlanReconciler(context: CatalogControllerContext): Reconciler {
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
      if (!cache.get(Kinds.installPlan, name, namespace)) return;
      const client = context.client();
      // Read live: the cache may not have our own last status write yet.
      const plan = await client.find<InstallPlanObject>({ ...Kinds.installPlan, namespace, name });
      if (!plan) return;
      const observed = plan.status;
      // The resolution that created the plan writes its steps; until then there is nothing to do.
      if (!observed?.plan?.length) return;
      if (observed.phase === InstallPlanPhases.Complete) return;
      if (observed.phase === InstallPlanPhases.Failed && !rbacRetries.take(namespace, name)) return;

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
 * of its namespace changes, since that may have granted them.
 */
class RbacRetries {
  private readonly pending = new Set<string>();

  readonly watches: readonly ReconcilerWatch[] = [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', map: (object, cache) => this.failedScopedPlans(object, cache) },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', map: (object, cache) => this.failedScopedPlans(object, cache) },
    { apiVersion: 'v1', kind: 'ServiceAccount', map: (object, cache) => this.failedScopedPlans(object, cache) },
  ];

  /** Whether the plan was given another chance since it failed; it is used up by asking. */
  take(namespace: string, name: string): boolean {
    return this.pending.delete(`${namespace}/${name}`);
  }

  private failedScopedPlans(object: CachedObject, cache: ObjectReader): ReconcileRequest[] {
    const namespace = object.metadata?.namespace;
    if (!namespace) return [];
    const requests: ReconcileRequest[] = [];
    for (const plan of typedList('installPlan', cache.list(Kinds.installPlan, { namespace }))) {
      const status = plan.status;
      if (status?.phase !== InstallPlanPhases.Failed || !status.attenuatedServiceAccountRef) continue;
      const name = plan.metadata?.name ?? '';
      this.pending.add(`${namespace}/${name}`);
      requests.push({ namespace, name });
    }
    return requests;
  }
}

/** Writes `next` through the status subresource unless it means what `observed` does. */
async function writeStatus(context: CatalogControllerContext, namespace: string, name: string, observed: InstallPlanStatus, next: InstallPlanStatus): Promise<void> {
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
