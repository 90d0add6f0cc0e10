import { Kinds } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import { OlmError } from '@olm/core';
import { approveInstallPlan, isWaitingForApproval } from './install-plan-approval.js';
import type { Json } from './json.js';
import { stepsByOperator } from './plan-views.js';
import { subscribe, type CreatedObject } from './subscribe.js';

export interface InstallRequest {
  readonly namespace: string;
  readonly packageName: string;
  readonly catalog: string;
  readonly catalogNamespace: string;
  readonly channel?: string;
  /** A CSV of the channel to start at (the version picked). */
  readonly startingCsv?: string;
  /** The approval the Subscription keeps once the install is confirmed. */
  readonly approval: 'Automatic' | 'Manual';
}

/** An install the page started and has neither confirmed nor cancelled: what it created, for cancel. */
interface PendingInstall {
  readonly created: readonly CreatedObject[];
  readonly approval: 'Automatic' | 'Manual';
}

/**
 * Install with a preview: only the cluster can resolve, so the Subscription is created with Manual
 * approval (and an OperatorGroup when the namespace has none, as `olm install` does); its InstallPlan
 * is the preview (every operator that comes along, with its steps); confirming approves the plan and
 * then sets the approval asked for; cancelling deletes what was created. Pending installs are kept
 * in memory, at most `maxPending` at once (a page cannot make the server remember without bound).
 */
export class InstallFlow {
  private readonly pending = new Map<string, PendingInstall>();

  constructor(private readonly maxPending: number) {}

  async start(client: KubeClient, request: InstallRequest) {
    if (this.pending.size >= this.maxPending) {
      throw new OlmError('OLM_CONSOLE_TOO_MANY_INSTALLS', `${this.pending.size} installs wait for confirm or cancel (the console's maxPendingInstalls); finish one first`, {
        details: { statusCode: 429, reason: 'TooManyRequests' },
      });
    }
    const created = await subscribe(client, {
      namespace: request.namespace,
      packageName: request.packageName,
      catalog: { name: request.catalog, namespace: request.catalogNamespace },
      approval: 'Manual',
      ...(request.channel !== undefined ? { channel: request.channel } : {}),
      ...(request.startingCsv !== undefined ? { startingCsv: request.startingCsv } : {}),
    });
    this.pending.set(key(request.namespace, request.packageName), { created, approval: request.approval });
    return { subscription: request.packageName, namespace: request.namespace, created };
  }

  /** What the plan will install, once OLM has resolved; `ready: false` with the Subscription's state until then. */
  async preview(client: KubeClient, namespace: string, name: string) {
    const subscription = await client.get<Json>({ ...Kinds.subscription, namespace, name });
    const failed = ((subscription.status?.conditions ?? []) as Json[]).find((condition) => condition.type === 'ResolutionFailed' && condition.status === 'True');
    if (failed) return { ready: false, failed: String(failed.message ?? failed.reason ?? 'resolution failed') };
    const planName = subscription.status?.installPlanRef?.name as string | undefined;
    const plan = planName ? await client.find<Json>({ ...Kinds.installPlan, namespace, name: planName }) : undefined;
    if (!plan || !isWaitingForApproval(plan)) return { ready: false, state: String(subscription.status?.state ?? 'resolving') };
    return { ready: true, plan: planName, csvs: (plan.spec?.clusterServiceVersionNames ?? []) as string[], operators: stepsByOperator(plan) };
  }

  async confirm(client: KubeClient, namespace: string, name: string) {
    const subscription = await client.get<Json>({ ...Kinds.subscription, namespace, name });
    const planName = subscription.status?.installPlanRef?.name as string | undefined;
    const plan = planName ? await client.get<Json>({ ...Kinds.installPlan, namespace, name: planName }) : undefined;
    if (!plan || !isWaitingForApproval(plan)) {
      throw new OlmError('OLM_CONSOLE_NOTHING_TO_CONFIRM', `subscription ${namespace}/${name} has no InstallPlan waiting for approval`, { details: { statusCode: 409, reason: 'Conflict' } });
    }
    await approveInstallPlan(client, plan);
    const approval = this.pending.get(key(namespace, name))?.approval ?? 'Manual';
    if (approval === 'Automatic') await client.patch({ ...Kinds.subscription, namespace, name }, { spec: { installPlanApproval: 'Automatic' } });
    this.pending.delete(key(namespace, name));
    return { approved: planName, approval };
  }

  /** Deletes what `start` created, newest first (the InstallPlan goes with its Subscription, which owns it). */
  async cancel(client: KubeClient, namespace: string, name: string) {
    const install = this.pending.get(key(namespace, name));
    if (!install) {
      throw new OlmError('OLM_CONSOLE_NOTHING_TO_CANCEL', `no install of ${namespace}/${name} started by this console waits for confirmation`, { details: { statusCode: 404, reason: 'NotFound' } });
    }
    const subscription = await client.find<Json>({ ...Kinds.subscription, namespace, name });
    const planName = subscription?.status?.installPlanRef?.name as string | undefined;
    if (planName) await client.delete({ ...Kinds.installPlan, namespace, name: planName }).catch(ignoreNotFound);
    for (const object of [...install.created].reverse()) {
      const kind = object.kind === 'Namespace' ? Kinds.namespace : object.kind === 'OperatorGroup' ? Kinds.operatorGroup : Kinds.subscription;
      await client.delete({ ...kind, name: object.name, ...(object.namespace ? { namespace: object.namespace } : {}) }).catch(ignoreNotFound);
    }
    this.pending.delete(key(namespace, name));
    return { deleted: install.created };
  }
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;

/** Gone already (the garbage collector was first): what cancel wanted. */
function ignoreNotFound(error: unknown): void {
  if ((error as { details?: { statusCode?: unknown } }).details?.statusCode !== 404) throw error;
}
