import type { Command } from 'commander';
import { hasErrorCode } from '@olm/core';
import { ExitCode, usageError } from '../cli-errors.js';
import { withClusterSession, type NamespacedCommandOptions } from '../cluster-session.js';
import { approveInstallPlan, describeUpgrade, findSubscription, installPlanKind, isWaitingForApproval, nothingToDo, pendingUpgradeOf, type Json } from './install-plans.js';
import { addClusterOptions, addNamespaceOption } from './shared-options.js';

/**
 * `olm approve INSTALLPLAN|PACKAGE`: sets `spec.approved: true` on a plan waiting for Manual
 * approval: the one named, or the one the package's Subscription waits on.
 */
export async function approve(name: string, options: NamespacedCommandOptions, out: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  return withClusterSession(options, 'operators', async ({ client, namespace }) => {
    const plan = await client.find<Json>({ ...installPlanKind, name, namespace });
    if (plan) {
      if (!isWaitingForApproval(plan)) {
        throw nothingToDo(
          `install plan ${namespace}/${name} does not wait for approval: ${plan.spec?.approved === true ? 'it is approved' : 'it is not approved'} and its phase is ${plan.status?.phase ?? 'not set yet'}`,
        );
      }
      await approveInstallPlan(client, plan);
      out(`install plan ${namespace}/${name} approved (installs ${((plan.spec?.clusterServiceVersionNames as string[] | undefined) ?? []).join(', ')})\n`);
      return ExitCode.ok;
    }
    const subscription = await findSubscription(client, namespace, name).catch(async (error: unknown) => {
      if (!hasErrorCode(error, 'OLM_CLI_USAGE')) throw error;
      const waiting = (await client.list<Json>(installPlanKind, { namespace })).items.filter(isWaitingForApproval);
      throw usageError(
        `no install plan or subscription named "${name}" in namespace ${namespace}; ` +
          (waiting.length > 0
            ? `install plans waiting for approval there: ${waiting.map((each) => `${each.metadata!.name} (${((each.spec?.clusterServiceVersionNames as string[] | undefined) ?? []).join(', ')})`).join(', ')}`
            : 'no install plan waits for approval there (see: olm status -A)'),
      );
    });
    const upgrade = await pendingUpgradeOf(client, subscription);
    if (!isWaitingForApproval(upgrade.plan)) {
      throw nothingToDo(
        `nothing of package ${name} waits for approval in ${namespace}` +
          (upgrade.plan ? ` (its install plan ${upgrade.plan.metadata!.name} is ${upgrade.plan.status?.phase ?? 'not started'})` : ` (subscription state ${subscription.status?.state ?? 'unknown'})`),
      );
    }
    await approveInstallPlan(client, upgrade.plan!);
    out(`install plan ${namespace}/${upgrade.plan!.metadata!.name} approved: ${describeUpgrade(upgrade)}\n`);
    return ExitCode.ok;
  });
}

export function registerApproveCommand(program: Command): void {
  const command = program
    .command('approve')
    .argument('<name>', 'an InstallPlan waiting for approval, or a package whose Subscription waits on one')
    .description('approve an InstallPlan of a Manual subscription (sets spec.approved: true)');
  addClusterOptions(command);
  addNamespaceOption(command, 'namespace of the InstallPlan', 'operators');
  command.action(async (name: string, options: NamespacedCommandOptions) => {
    process.exitCode = await approve(name, options);
  });
}
