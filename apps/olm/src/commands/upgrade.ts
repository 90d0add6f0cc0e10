import type { Command } from 'commander';
import { ExitCode } from '../cli-errors.js';
import { withClusterSession, type NamespacedCommandOptions } from '../cluster-session.js';
import { parseMilliseconds } from '../option-parsers.js';
import { createProgress, type Progress } from '../progress.js';
import { exitCodeOf, followSubscription } from './follow-subscription.js';
import { approveHint, approveInstallPlan, csvKind, describeUpgrade, findSubscription, isWaitingForApproval, nothingToDo, pendingUpgradeOf, type Json } from './install-plans.js';
import { formatUpgradeChanges, upgradeChanges } from '@olm/console';
import { addClusterOptions, addNamespaceOption } from './shared-options.js';

export interface UpgradeOptions extends NamespacedCommandOptions {
  readonly approve?: boolean;
  /** Show what approving the plan changes (permissions, images, CRD schemas), and change nothing. */
  readonly dryRun?: boolean;
  readonly wait: boolean;
  readonly timeout: number;
  readonly pollInterval?: number;
}

/**
 * `olm upgrade PACKAGE`: the upgrade a Manual Subscription waits on (its InstallPlan, from which CSV
 * to which); with `--approve` it approves that plan, as kubectl-operator's `upgrade` does, and
 * follows the new CSV until it succeeds or fails.
 */
export async function upgradePackage(
  packageName: string,
  options: UpgradeOptions,
  progress: Progress = createProgress(),
  out: (text: string) => void = (text) => process.stdout.write(text),
): Promise<number> {
  return withClusterSession(options, 'operators', async ({ client, namespace }) => {
    const subscription = await findSubscription(client, namespace, packageName);
    const name = subscription.metadata!.name!;
    const upgrade = await pendingUpgradeOf(client, subscription);
    const at = upgrade.from ? `it is at ${upgrade.from}` : 'nothing is installed yet';
    if (!isWaitingForApproval(upgrade.plan)) {
      const why =
        subscription.spec?.installPlanApproval !== 'Manual'
          ? `subscription ${namespace}/${name} has Automatic approval: OLM installs its upgrades without asking (${at})`
          : upgrade.plan
            ? `install plan ${upgrade.plan.metadata!.name} of ${packageName} does not wait for approval (phase ${upgrade.plan.status?.phase ?? 'unknown'}, ${at})`
            : `no upgrade of ${packageName} waits for approval in ${namespace} (${at}; subscription state ${subscription.status?.state ?? 'unknown'})`;
      if (options.approve && !options.dryRun) throw nothingToDo(`nothing to approve: ${why}`);
      out(`${why}\n`);
      return ExitCode.ok;
    }
    const plan = upgrade.plan!;
    const planName = plan.metadata!.name!;
    out(`${packageName} in ${namespace}: ${describeUpgrade(upgrade)}; install plan ${planName} waits for approval\n`);
    if (options.dryRun) {
      const from = upgrade.from ? await client.find<Json>({ ...csvKind, namespace, name: upgrade.from }) : undefined;
      const crds = (await client.list<Json>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' })).items;
      out(formatUpgradeChanges(upgradeChanges(plan, upgrade.to ?? '', from, new Map(crds.map((crd) => [crd.metadata!.name!, crd])))));
      return ExitCode.ok;
    }
    if (!options.approve) {
      out(`approve it with: olm upgrade ${packageName} -n ${namespace} --approve (or: ${approveHint(namespace, planName)})\n`);
      return ExitCode.ok;
    }
    await approveInstallPlan(client, plan);
    out(`install plan ${namespace}/${planName} approved\n`);
    if (!options.wait) return ExitCode.ok;
    const outcome = await followSubscription(client, namespace, name, { ...options, ...(upgrade.to ? { csv: upgrade.to } : {}) }, progress);
    return exitCodeOf(outcome);
  });
}

export function registerUpgradeCommand(program: Command): void {
  const command = program
    .command('upgrade')
    .argument('<package>', 'the package whose Subscription waits on an upgrade (or the Subscription\'s name)')
    .description('show the upgrade a Manual subscription waits on (from which CSV to which); --approve approves it and follows the new CSV');
  addClusterOptions(command);
  addNamespaceOption(command, 'namespace of the Subscription', 'operators');
  command
    .option('--approve', 'approve the InstallPlan of the upgrade')
    .option('--dry-run', 'show what approving the upgrade changes (permissions added and removed, images, CRD schema changes) and change nothing')
    .option('--no-wait', 'with --approve, return once the plan is approved')
    .option('--timeout <ms>', 'with --approve, how long to wait for the new CSV', parseMilliseconds, 300_000)
    .action(async (packageName: string, options: UpgradeOptions) => {
      process.exitCode = await upgradePackage(packageName, options);
    });
}
