import { Kinds } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import { describeError } from '@olm/core';
import { canI } from './access-review.js';
import { approveInstallPlan, isWaitingForApproval } from './install-plan-approval.js';
import type { Json } from './json.js';
import { upgradeChanges, type UpgradeChanges } from './upgrade-changes.js';

/** A plan's steps, grouped by the operator (CSV) each step is for. */
export function stepsByOperator(plan: Json): Array<{ operator: string; steps: Array<{ kind: string; name: string; status: string }> }> {
  const groups = new Map<string, Array<{ kind: string; name: string; status: string }>>();
  for (const step of (plan.status?.plan ?? []) as Json[]) {
    const operator = String(step.resolving ?? '');
    groups.set(operator, [...(groups.get(operator) ?? []), { kind: String(step.resource?.kind ?? ''), name: String(step.resource?.name ?? ''), status: String(step.status ?? '') }]);
  }
  return [...groups].map(([operator, steps]) => ({ operator, steps }));
}

/**
 * The InstallPlans of a namespace: what each installs (steps per operator), what approving it changes
 * (the same comparison as `olm upgrade --dry-run`), and, for those waiting, whether this user may
 * approve them (a SelfSubjectAccessReview for `patch` on that InstallPlan, the verb approving uses).
 */
export async function plansView(client: KubeClient, namespace: string) {
  const [plans, subscriptions, csvs] = await Promise.all([
    client.list<Json>(Kinds.installPlan, { namespace }),
    client.list<Json>(Kinds.subscription, { namespace }),
    client.list<Json>(Kinds.clusterServiceVersion, { namespace }),
  ]);
  const waiting = plans.items.filter(isWaitingForApproval);
  // CRDs are cluster-scoped: a namespace user may not read them, and then CRD changes are left out, said so.
  const crds = waiting.length === 0 ? [] : await client.list<Json>(Kinds.customResourceDefinition).then((list) => list.items, (error: unknown) => error as Error);
  const liveCrds = new Map(Array.isArray(crds) ? crds.map((crd) => [crd.metadata!.name!, crd] as const) : []);
  return {
    namespace,
    plans: await Promise.all(
      plans.items.map(async (plan) => {
        const isWaiting = isWaitingForApproval(plan);
        const names = (plan.spec?.clusterServiceVersionNames ?? []) as string[];
        return {
          name: plan.metadata!.name!,
          phase: String(plan.status?.phase ?? ''),
          approval: String(plan.spec?.approval ?? ''),
          approved: plan.spec?.approved === true,
          csvs: names,
          waiting: isWaiting,
          canApprove: isWaiting ? await canI(client, { group: 'operators.coreos.com', resource: 'installplans', verb: 'patch', namespace, name: plan.metadata!.name! }) : false,
          operators: stepsByOperator(plan),
          changes: isWaiting ? changesOf(plan, names, subscriptions.items, csvs.items, liveCrds) : [],
          ...(isWaiting && !Array.isArray(crds) ? { changesNote: `CRD changes are not shown: ${describeError(crds)}` } : {}),
        };
      }),
    ),
  };
}

function changesOf(plan: Json, names: readonly string[], subscriptions: readonly Json[], csvs: readonly Json[], liveCrds: ReadonlyMap<string, Json>): Array<{ csv: string; from?: string } & UpgradeChanges> {
  return names.map((to) => {
    const from = subscriptions.find((subscription) => subscription.status?.currentCSV === to)?.status?.installedCSV as string | undefined;
    const installed = from && from !== to ? csvs.find((csv) => csv.metadata?.name === from) : undefined;
    return { csv: to, ...(installed ? { from } : {}), ...upgradeChanges(plan, to, installed, liveCrds) };
  });
}

/** Approves a plan with the user's identity: the cluster's 403 reaches the page as it is. */
export async function approvePlan(client: KubeClient, namespace: string, name: string): Promise<{ approved: string }> {
  const plan = await client.get<Json>({ ...Kinds.installPlan, namespace, name });
  await approveInstallPlan(client, plan);
  return { approved: `${namespace}/${name}` };
}
