import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { didYouMean, OlmError } from '@olm/core';
import { usageError } from '../cli-errors.js';

export type Json = CachedObject & Record<string, any>;

const v1alpha1 = 'operators.coreos.com/v1alpha1';
export const subscriptionKind = { apiVersion: v1alpha1, kind: 'Subscription' } as const;
export const installPlanKind = { apiVersion: v1alpha1, kind: 'InstallPlan' } as const;
export const csvKind = { apiVersion: v1alpha1, kind: 'ClusterServiceVersion' } as const;


// One implementation for the CLI and the console.
export { approveHint, approveInstallPlan, createdForAnnotation, isWaitingForApproval } from '@olm/console';
/** The same with kubectl alone. */
export const kubectlApproveHint = (namespace: string, name: string): string =>
  `kubectl patch installplan ${name} -n ${namespace} --type merge -p '{"spec":{"approved":true}}'`;

/** Nothing to approve or upgrade: exit 1 with what the state is. */
export function nothingToDo(message: string): OlmError {
  return new OlmError('OLM_CLI_NOTHING_TO_APPROVE', message);
}

/** The Subscription of a package in a namespace (`spec.name`, as kubectl-operator looks it up; else by its own name). */
export async function findSubscription(client: KubeClient, namespace: string, packageName: string): Promise<Json> {
  const subscriptions = (await client.list<Json>(subscriptionKind, { namespace })).items;
  const found =
    subscriptions.find((subscription) => subscription.spec?.name === packageName) ?? subscriptions.find((subscription) => subscription.metadata?.name === packageName);
  if (found) return found;
  const packages = subscriptions.map((subscription) => String(subscription.spec?.name ?? subscription.metadata?.name));
  throw usageError(
    `no subscription to package "${packageName}" in namespace ${namespace}${didYouMean(packageName, packages)}` +
      (packages.length > 0 ? ` (subscribed here: ${packages.join(', ')})` : ' (none there; another namespace? pass -n NAMESPACE)'),
  );
}

/** What a Subscription waits on: its InstallPlan, which CSV it has and which it gets. */
export interface PendingUpgrade {
  readonly subscription: Json;
  readonly plan?: Json;
  /** The installed CSV, if any (a first install has none). */
  readonly from?: string;
  /** The CSV the plan installs for this package. */
  readonly to?: string;
  /** Other CSVs the same plan installs (dependencies). */
  readonly alongside: readonly string[];
}

export async function pendingUpgradeOf(client: KubeClient, subscription: Json): Promise<PendingUpgrade> {
  const namespace = subscription.metadata!.namespace!;
  const planName = subscription.status?.installPlanRef?.name as string | undefined;
  const plan = planName ? await client.find<Json>({ ...installPlanKind, name: planName, namespace }) : undefined;
  const planCsvs = (plan?.spec?.clusterServiceVersionNames as string[] | undefined) ?? [];
  const installed = subscription.status?.installedCSV as string | undefined;
  const current = subscription.status?.currentCSV as string | undefined;
  const to = current !== undefined && planCsvs.includes(current) ? current : planCsvs.length === 1 ? planCsvs[0] : current;
  return {
    subscription,
    ...(plan ? { plan } : {}),
    ...(installed ? { from: installed } : {}),
    ...(to ? { to } : {}),
    alongside: planCsvs.filter((name) => name !== to),
  };
}

/** `a.v1 → a.v2` (or `a.v2 (first install)`), plus what comes along. */
export function describeUpgrade(upgrade: PendingUpgrade): string {
  const change = upgrade.from ? `${upgrade.from} -> ${upgrade.to ?? '?'}` : `${upgrade.to ?? '?'} (first install)`;
  return upgrade.alongside.length > 0 ? `${change}, with ${upgrade.alongside.join(', ')}` : change;
}
