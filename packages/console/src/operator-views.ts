import { Kinds } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import type { Json } from './json.js';
import { conditionsOf, listIfServed } from './served-list.js';

/**
 * The installed operators of a namespace: each Subscription with its CSV (phase, reason, conditions),
 * the components the Operator API lists for it, and its OperatorConditions. The Operator API is
 * cluster-scoped: a user who may not read Operators sees the rest, and a note saying why the
 * components are missing.
 */
export async function installedOperatorsView(client: KubeClient, namespace: string) {
  const [subscriptions, csvs, operatorConditions, operators] = await Promise.all([
    client.list<Json>(Kinds.subscription, { namespace }),
    client.list<Json>(Kinds.clusterServiceVersion, { namespace }),
    listIfServed(client, Kinds.operatorCondition, { namespace }),
    listIfServed(client, Kinds.operator).catch((error: unknown) => ({ served: false as const, items: [] as [], problem: (error as Error).message })),
  ]);
  const csvByName = new Map(csvs.items.map((csv) => [csv.metadata!.name!, csv]));
  return {
    namespace,
    componentsNote: 'problem' in operators ? `components are not shown: ${operators.problem}` : operators.served ? undefined : 'components are not shown: the Operator API (operators.coreos.com/v1 Operator) is not served',
    operators: subscriptions.items.map((subscription) => {
      const packageName = String(subscription.spec?.name ?? '');
      const csvName = (subscription.status?.installedCSV ?? subscription.status?.currentCSV) as string | undefined;
      const csv = csvName ? csvByName.get(csvName) : undefined;
      const operator = operators.items.find((candidate) => candidate.metadata?.name === `${packageName}.${namespace}`);
      return {
        subscription: subscription.metadata!.name!,
        package: packageName,
        channel: String(subscription.spec?.channel ?? ''),
        catalog: `${subscription.spec?.sourceNamespace ?? ''}/${subscription.spec?.source ?? ''}`,
        approval: String(subscription.spec?.installPlanApproval ?? 'Automatic'),
        state: String(subscription.status?.state ?? ''),
        installedCSV: subscription.status?.installedCSV as string | undefined,
        currentCSV: subscription.status?.currentCSV as string | undefined,
        conditions: conditionsOf(subscription),
        csv: csv
          ? { name: csv.metadata!.name!, version: csv.spec?.version as string | undefined, phase: String(csv.status?.phase ?? ''), reason: String(csv.status?.reason ?? ''), message: String(csv.status?.message ?? ''), conditions: csvConditions(csv) }
          : undefined,
        components: ((operator?.status?.components?.refs ?? []) as Json[]).map((ref) => ({
          kind: String(ref.kind),
          name: String(ref.name),
          ...(ref.namespace ? { namespace: String(ref.namespace) } : {}),
          conditions: ((ref.conditions ?? []) as Json[]).map((condition) => ({ type: String(condition.type), status: String(condition.status), ...(condition.reason ? { reason: String(condition.reason) } : {}) })),
        })),
        operatorConditions: operatorConditions.items
          .filter((condition) => csvName !== undefined && condition.metadata?.name === csvName)
          .flatMap((condition) => conditionsOf(condition)),
      };
    }),
  };
}

/** A CSV's `status.conditions` is its phase history: the last few transitions, newest last. */
function csvConditions(csv: Json) {
  return ((csv.status?.conditions ?? []) as Json[]).slice(-5).map((condition) => ({
    phase: String(condition.phase ?? ''),
    reason: String(condition.reason ?? ''),
    message: String(condition.message ?? ''),
    lastTransitionTime: String(condition.lastTransitionTime ?? ''),
  }));
}
