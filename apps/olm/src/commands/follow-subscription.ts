import type { KubeClient } from '@olm/controller-runtime';
import { ExitCode } from '../cli-errors.js';
import type { Progress } from '../progress.js';
import { approveHint, csvKind, installPlanKind, isWaitingForApproval, kubectlApproveHint, subscriptionKind, type Json } from './install-plans.js';

/** How following a Subscription ended. */
export interface FollowOutcome {
  readonly result: 'Succeeded' | 'Failed' | 'ResolutionFailed' | 'TimedOut' | 'Deleted';
  readonly csv?: string;
  readonly message: string;
}

export interface FollowOptions {
  readonly timeout: number;
  readonly pollInterval?: number;
  /** Follow until this CSV succeeds (an upgrade); default whichever the Subscription reaches. */
  readonly csv?: string;
}

const trueCondition = (object: Json | undefined, type: string) =>
  (object?.status?.conditions as Array<{ type: string; status: string; reason?: string; message?: string }> | undefined)?.find(
    (entry) => entry.type === type && entry.status === 'True',
  );

export const exitCodeOf = (outcome: FollowOutcome): number => (outcome.result === 'Succeeded' ? ExitCode.ok : ExitCode.failed);

/**
 * Follows a Subscription through resolution, its InstallPlan (saying how to approve it) and its CSV
 * until the CSV succeeds or fails, or the timeout passes; progress goes to `progress`.
 */
export async function followSubscription(client: KubeClient, namespace: string, name: string, options: FollowOptions, progress: Progress): Promise<FollowOutcome> {
  const deadline = Date.now() + options.timeout;
  const poll = options.pollInterval ?? 500;
  const end = (outcome: FollowOutcome): FollowOutcome => {
    progress.done(outcome.message);
    return outcome;
  };
  for (;;) {
    const subscription = await client.find<Json>({ ...subscriptionKind, name, namespace });
    if (!subscription) return end({ result: 'Deleted', message: `subscription ${namespace}/${name} was deleted` });
    // Following an approved plan to its CSV, a resolution failure of what comes next does not stop it
    // (the namespace is re-resolved while the old and the new CSV both exist).
    const failed = options.csv === undefined ? trueCondition(subscription, 'ResolutionFailed') : undefined;
    if (failed) return end({ result: 'ResolutionFailed', message: `resolution failed (${failed.reason}): ${failed.message}` });
    const unhealthy = trueCondition(subscription, 'CatalogSourcesUnhealthy');
    const planName = subscription.status?.installPlanRef?.name as string | undefined;
    const plan = planName ? await client.find<Json>({ ...installPlanKind, name: planName, namespace }) : undefined;
    const csvName = options.csv ?? (subscription.status?.currentCSV as string | undefined);
    const csv = csvName ? await client.find<Json>({ ...csvKind, name: csvName, namespace }) : undefined;

    if (csv?.status?.phase === 'Succeeded') return end({ result: 'Succeeded', csv: csvName!, message: `${csvName} installed in ${namespace}: Succeeded` });
    if (csv?.status?.phase === 'Failed') return end({ result: 'Failed', csv: csvName!, message: `${csvName} failed (${csv.status.reason}): ${csv.status.message}` });
    if (plan?.status?.phase === 'Failed') {
      const installed = (plan.status.conditions as Array<{ type: string; message?: string }> | undefined)?.find((c) => c.type === 'Installed');
      return end({ result: 'Failed', message: `install plan ${planName} failed: ${installed?.message ?? plan.status.message ?? 'no reason given'}` });
    }
    if (Date.now() > deadline) {
      return end({ result: 'TimedOut', ...(csvName ? { csv: csvName } : {}), message: `timed out after ${options.timeout} ms; see: olm status -n ${namespace}` });
    }
    progress.update(
      csv
        ? `${csvName}: ${csv.status?.phase || 'created'}${csv.status?.message ? ` (${csv.status.message})` : ''}`
        : isWaitingForApproval(plan)
          ? `install plan ${planName} waits for approval: ${kubectlApproveHint(namespace, planName!)} (or: ${approveHint(namespace, planName!)})`
          : plan
            ? `install plan ${planName}: ${plan.status?.phase ?? 'created'}`
            : unhealthy
              ? `waiting for catalogs: ${unhealthy.message}`
              : 'resolving dependencies',
    );
    await new Promise((resolve) => setTimeout(resolve, poll));
  }
}
