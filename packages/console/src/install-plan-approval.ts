import { Kinds } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import type { Json } from './json.js';

/** The command that approves a plan with the `olm` CLI. */
export const approveHint = (namespace: string, name: string): string => `olm approve ${name} -n ${namespace}`;

export function isWaitingForApproval(plan: Json | undefined): boolean {
  return plan?.status?.phase === 'RequiresApproval' && plan.spec?.approved !== true;
}

/** Sets `spec.approved: true`, as `kubectl patch installplan NAME --type merge -p '{"spec":{"approved":true}}'` does. */
export async function approveInstallPlan(client: KubeClient, plan: Json): Promise<void> {
  await client.patch({ ...Kinds.installPlan, name: plan.metadata!.name!, namespace: plan.metadata!.namespace! }, { spec: { approved: true } });
}
