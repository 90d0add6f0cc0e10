import type { CachedObject } from '@olm/core';
import type { Command } from 'commander';
import { withClusterSession, type NamespacedCommandOptions } from '../cluster-session.js';
import { printDocument } from '../output.js';
import { approveHint, kubectlApproveHint } from './install-plans.js';
import { addClusterOptions, addNamespaceOption, addOutputOption, type OutputFormat } from './shared-options.js';

type Json = CachedObject & Record<string, any>;

/** Left-aligned columns, as kubectl prints them. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('   ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** One row of `olm status`: a Subscription, its current CSV and why it is where it is. */
export interface SubscriptionStatus {
  readonly namespace: string;
  readonly subscription: string;
  readonly package: string;
  readonly channel: string;
  readonly state: string;
  readonly csv: string;
  readonly phase: string;
  readonly reason: string;
}

/** An InstallPlan waiting for `spec.approved: true`. */
export interface PendingInstallPlan {
  readonly namespace: string;
  readonly name: string;
  readonly clusterServiceVersionNames: readonly string[];
  readonly approve: string;
}

/** What `olm status -o json|yaml` prints: the table's rows as objects, and the plans waiting for approval. */
export interface StatusDocument {
  readonly subscriptions: readonly SubscriptionStatus[];
  readonly installPlansWaitingForApproval: readonly PendingInstallPlan[];
}

export interface StatusOptions extends NamespacedCommandOptions {
  readonly allNamespaces?: boolean;
  readonly output?: OutputFormat;
}

const v1alpha1 = 'operators.coreos.com/v1alpha1';

/** `olm status`: every Subscription with its state and CSV phase, and the plans waiting for approval. */
export async function showStatus(options: StatusOptions, out: (text: string) => void = (text) => process.stdout.write(text)): Promise<void> {
  await withClusterSession(options, 'operators', async ({ client, namespace }) => {
    const scope = options.allNamespaces ? {} : { namespace };
    const [subscriptions, csvs, plans] = await Promise.all(
      (['Subscription', 'ClusterServiceVersion', 'InstallPlan'] as const).map(async (kind) => (await client.list<Json>({ apiVersion: v1alpha1, kind }, scope)).items),
    );
    const document: StatusDocument = {
      subscriptions: subscriptions!.map((subscription) => {
        const subscriptionNamespace = subscription.metadata!.namespace!;
        const current = subscription.status?.currentCSV ?? '';
        const csv = csvs!.find((item) => item.metadata?.namespace === subscriptionNamespace && item.metadata?.name === current);
        const problem = (subscription.status?.conditions as Array<{ type: string; status: string; reason?: string }> | undefined)?.find(
          (condition) => condition.status === 'True' && condition.type !== 'CatalogSourcesUnhealthy',
        );
        return {
          namespace: subscriptionNamespace,
          subscription: subscription.metadata!.name!,
          package: subscription.spec?.name ?? '',
          channel: subscription.spec?.channel ?? '',
          state: subscription.status?.state ?? '',
          csv: current,
          phase: csv?.status?.phase ?? '',
          reason: csv?.status?.reason ?? problem?.reason ?? '',
        };
      }),
      installPlansWaitingForApproval: plans!
        .filter((plan) => plan.status?.phase === 'RequiresApproval' && plan.spec?.approved !== true)
        .map((plan) => ({
          namespace: plan.metadata!.namespace!,
          name: plan.metadata!.name!,
          clusterServiceVersionNames: (plan.spec?.clusterServiceVersionNames as string[] | undefined) ?? [],
          approve: approveHint(plan.metadata!.namespace!, plan.metadata!.name!),
        })),
    };
    if (options.output) {
      await printDocument(document, options.output, out);
      return;
    }
    if (document.subscriptions.length === 0) {
      out(`no subscriptions ${options.allNamespaces ? 'in any namespace' : `in namespace ${namespace}`}; install one with: olm install PACKAGE${options.allNamespaces ? '' : ` -n ${namespace}`}\n`);
      return;
    }
    out(
      formatTable(
        ['NAMESPACE', 'SUBSCRIPTION', 'PACKAGE', 'CHANNEL', 'STATE', 'CSV', 'PHASE', 'REASON'],
        document.subscriptions.map((row) => [row.namespace, row.subscription, row.package, row.channel, row.state, row.csv, row.phase, row.reason]),
      ),
    );
    for (const plan of document.installPlansWaitingForApproval) {
      out(
        `\ninstall plan ${plan.namespace}/${plan.name} waits for approval (${plan.clusterServiceVersionNames.join(', ')}):\n` +
          `  ${plan.approve}\n  ${kubectlApproveHint(plan.namespace, plan.name)}\n`,
      );
    }
  });
}

export function registerStatusCommand(program: Command): void {
  const command = program.command('status').description('show subscriptions, their CSVs and install plans waiting for approval');
  addClusterOptions(command);
  addNamespaceOption(command, 'namespace to show', 'operators');
  command.option('-A, --all-namespaces', 'show every namespace');
  addOutputOption(command, 'print the rows and the plans waiting for approval as json or yaml');
  command.action(async (options: StatusOptions) => {
    await showStatus(options);
  });
}
