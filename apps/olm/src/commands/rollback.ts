import { ProjectAnnotations } from '@olm/api';
import type { KubeClient } from '@olm/controller-runtime';
import type { Command } from 'commander';
import { ExitCode } from '../cli-errors.js';
import { withClusterSession, type NamespacedCommandOptions } from '../cluster-session.js';
import { parseMilliseconds } from '../option-parsers.js';
import { createProgress, type Progress } from '../progress.js';
import { exitCodeOf, followSubscription } from './follow-subscription.js';
import { approveInstallPlan, csvKind, findSubscription, installPlanKind, isWaitingForApproval, subscriptionKind, type Json } from './install-plans.js';
import type { RollbackPlan } from './rollback-plan.js';
import { addClusterOptions, addNamespaceOption } from './shared-options.js';
import { askOnTerminal } from './uninstall.js';

export interface RollbackOptions extends NamespacedCommandOptions {
  readonly to: string;
  readonly yes?: boolean;
  readonly wait: boolean;
  readonly timeout: number;
  /** The catalog's registry (`host:port`), when the address the CatalogSource publishes cannot be reached from here. */
  readonly catalogAddress?: string;
}

export interface RollbackIo {
  readonly out: (text: string) => void;
  readonly confirm: (question: string) => Promise<boolean>;
  readonly progress: Progress;
}

const refusal = 'refusing to roll back without confirmation: stdin is not a terminal; pass --yes to do what is listed above';

/**
 * `olm rollback PACKAGE --to VERSION`: checks the earlier version's CRDs against the live CRDs and their
 * custom resources, shows what happens, asks (unless `--yes`), then replaces the Subscription with one
 * that starts at that version and pins it (`olm-ts.io/version-pin`), removes the installed CSV, and
 * follows the earlier CSV until it succeeds. The pin keeps OLM from upgrading again until it is removed.
 */
export async function rollbackPackage(
  packageName: string,
  options: RollbackOptions,
  io: RollbackIo = { out: (text) => process.stdout.write(text), confirm: (question) => askOnTerminal(question, process.stdin, process.stdout, refusal), progress: createProgress() },
): Promise<number> {
  const { planRollback } = await import('./rollback-plan.js');
  return withClusterSession(options, 'operators', async ({ client, namespace }) => {
    const plan = await planRollback(client, await findSubscription(client, namespace, packageName), options.to, options.catalogAddress);
    io.out(describeRollback(plan));
    const refused = plan.crds.filter((crd) => crd.verdict === 'refused');
    if (refused.length > 0) {
      io.out(`not rolled back: installing ${plan.to.csv} would break existing data; nothing was changed\n`);
      return ExitCode.failed;
    }
    if (!options.yes && !(await io.confirm(`Roll back ${packageName} to ${plan.to.version}?`))) {
      io.out('nothing changed\n');
      return ExitCode.failed;
    }
    const name = await replaceSubscription(client, plan);
    io.out(`subscription ${namespace}/${name} now starts at ${plan.to.csv} and is pinned to ${plan.to.version}; ${plan.from.csv} deleted\n`);
    if (!options.wait) return ExitCode.ok;
    if (plan.subscription.spec?.installPlanApproval === 'Manual') {
      // Confirming the rollback approved its plan: a Manual Subscription would otherwise wait with nothing running.
      const approved = await approveRollbackPlan(client, namespace, name, plan.to.csv, Date.now() + options.timeout);
      if (approved) io.out(`install plan ${namespace}/${approved} of the rollback approved (the Subscription is Manual)\n`);
    }
    const outcome = await followSubscription(client, namespace, name, { timeout: options.timeout, csv: plan.to.csv }, io.progress);
    if (outcome.result === 'Succeeded') io.out(`${packageName} rolled back to ${plan.to.version}; to let it upgrade again: kubectl annotate subscription ${name} -n ${namespace} ${ProjectAnnotations.versionPin}-\n`);
    return exitCodeOf(outcome);
  });
}

export function describeRollback(plan: RollbackPlan): string {
  const namespace = plan.subscription.metadata!.namespace!;
  const name = plan.subscription.metadata!.name!;
  const lines = [
    `olm rollback ${plan.subscription.spec?.name} -n ${namespace}:`,
    `  installed:     ${plan.from.csv}${plan.from.version ? ` (${plan.from.version})` : ''}`,
    `  rolls back to: ${plan.to.csv} (${plan.to.version}), channel ${plan.to.channel} of catalog ${plan.catalog}${plan.installedBefore ? `, installed here before at ${plan.installedBefore}` : ''}`,
    '  CRDs (the upgrade-safety rules against the live CRDs and their custom resources):',
    ...(plan.crds.length === 0 ? ['    none in the bundle'] : plan.crds.map((crd) => `    ${crd.name}: ${crdLine(crd)}`)),
    `  then: subscription ${name} is replaced by one with startingCSV ${plan.to.csv} and ${ProjectAnnotations.versionPin}: ${plan.to.version} (it keeps its spec, labels, annotations and install history),`,
    `        ${plan.from.csv} is deleted (its Deployments stop until ${plan.to.csv} runs; custom resources and CRDs stay),`,
    '        and OLM does not upgrade it again until the pin is removed.',
    ...(plan.subscription.spec?.installPlanApproval === 'Manual' ? ['  the Subscription is Manual: confirming approves the rollback\'s InstallPlan (and only that one).'] : []),
  ];
  return `${lines.join('\n')}\n`;
}

const crdLine = (crd: RollbackPlan['crds'][number]): string =>
  crd.verdict === 'new' ? 'not on the cluster; it is created' : crd.verdict === 'safe' ? 'safe: existing custom resources are valid under it and no stored version is removed' : `refused: ${crd.message}`;

/**
 * Deletes the Subscription (a Subscription's starting point only counts when it is created), then the
 * installed CSV, and creates the Subscription again starting at the earlier CSV, pinned to it.
 * In that order, so that OLM never sees the old Subscription without its CSV and reinstalls it.
 */
async function replaceSubscription(client: KubeClient, plan: RollbackPlan): Promise<string> {
  const old = plan.subscription;
  const namespace = old.metadata!.namespace!;
  const name = old.metadata!.name!;
  const { 'kubectl.kubernetes.io/last-applied-configuration': _lastApplied, ...annotations } = (old.metadata?.annotations ?? {}) as Record<string, string>;
  await deleteAndWait(client, { ...subscriptionKind, namespace, name });
  await deleteAndWait(client, { ...csvKind, namespace, name: plan.from.csv });
  await client.create<Json>({
    ...subscriptionKind,
    metadata: {
      name,
      namespace,
      ...(old.metadata?.labels ? { labels: old.metadata.labels } : {}),
      annotations: { ...annotations, [ProjectAnnotations.versionPin]: plan.to.version },
    },
    spec: { ...old.spec, startingCSV: plan.to.csv },
  });
  return name;
}

/** Approves the plan the new Subscription references once it holds the earlier CSV and waits; its name, or undefined past the deadline. */
async function approveRollbackPlan(client: KubeClient, namespace: string, name: string, csv: string, deadline: number): Promise<string | undefined> {
  while (Date.now() < deadline) {
    const subscription = await client.find<Json>({ ...subscriptionKind, namespace, name });
    const planName = subscription?.status?.installPlanRef?.name as string | undefined;
    const plan = planName ? await client.find<Json>({ ...installPlanKind, namespace, name: planName }) : undefined;
    if (plan && isWaitingForApproval(plan) && (plan.spec?.clusterServiceVersionNames as string[] | undefined)?.includes(csv)) {
      await approveInstallPlan(client, plan);
      return planName;
    }
    if (plan && !isWaitingForApproval(plan) && plan.spec?.approved === true) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return undefined;
}

async function deleteAndWait(client: KubeClient, reference: { apiVersion: string; kind: string; namespace: string; name: string }): Promise<void> {
  const { isNotFound } = await import('@olm/controller-runtime');
  try {
    await client.delete(reference, { propagationPolicy: 'Background' });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const deadline = Date.now() + 60_000;
  while (await client.find(reference)) {
    if (Date.now() > deadline) throw new Error(`${reference.kind} ${reference.namespace}/${reference.name} is still there after 60 s (its finalizers need OLM running); run olm rollback again once it is gone`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function registerRollbackCommand(program: Command): void {
  const command = program
    .command('rollback')
    .argument('<package>', 'the package (a Subscription\'s spec.name) or the Subscription\'s name')
    .description('reinstall an earlier version (its CRDs checked against the live custom resources first) and pin it, after a summary and a confirmation')
    .requiredOption('--to <version>', 'the earlier version to go back to (see olm history PACKAGE)');
  addClusterOptions(command);
  addNamespaceOption(command, 'namespace of the Subscription', 'operators');
  command
    .option('--yes', 'do it without asking')
    .option('--catalog-address <host:port>', 'the catalog\'s registry, when the address its CatalogSource publishes is not reachable from here (kubectl port-forward)')
    .option('--no-wait', 'return once the Subscription is replaced')
    .option('--timeout <ms>', 'how long to wait for the earlier CSV', parseMilliseconds, 300_000)
    .action(async (packageName: string, options: RollbackOptions) => {
      process.exitCode = await rollbackPackage(packageName, options);
    });
}
