import { readInstallHistory, type InstallHistoryEntry } from '@olm/api';
import type { Command } from 'commander';
import { withClusterSession, type NamespacedCommandOptions } from '../cluster-session.js';
import { printDocument } from '../output.js';
import { findSubscription } from './install-plans.js';
import { addClusterOptions, addNamespaceOption, addOutputOption, type OutputFormat } from './shared-options.js';

export interface HistoryOptions extends NamespacedCommandOptions {
  readonly output?: OutputFormat;
}

/** What `olm history -o json|yaml` prints. */
export interface InstallHistory {
  readonly subscription: string;
  readonly namespace: string;
  readonly package: string;
  readonly installedCSV?: string;
  /** Oldest first. */
  readonly revisions: readonly InstallHistoryEntry[];
}

/**
 * `olm history PACKAGE`: the revisions a Subscription installed (CSV, version, when, from which plan),
 * from the history the catalog operator keeps on it; the installed one is marked.
 */
export async function showHistory(packageName: string, options: HistoryOptions, out: (text: string) => void = (text) => process.stdout.write(text)): Promise<InstallHistory> {
  return withClusterSession(options, 'operators', async ({ client, namespace }) => {
    const subscription = await findSubscription(client, namespace, packageName);
    const installed = subscription.status?.installedCSV as string | undefined;
    const history: InstallHistory = {
      subscription: subscription.metadata!.name!,
      namespace,
      package: String(subscription.spec?.name ?? packageName),
      ...(installed ? { installedCSV: installed } : {}),
      revisions: readInstallHistory(subscription.metadata?.annotations),
    };
    if (options.output) await printDocument(history, options.output, out);
    else out(formatHistory(history));
    return history;
  });
}

export function formatHistory(history: InstallHistory): string {
  if (history.revisions.length === 0) {
    return `no revisions recorded for subscription ${history.namespace}/${history.subscription} yet${history.installedCSV ? ` (installed: ${history.installedCSV})` : ''}\n`;
  }
  const rows = history.revisions.map((entry, index) => [
    String(index + 1),
    entry.csv,
    entry.version ?? '',
    entry.installedAt,
    entry.installPlan ?? '',
    index === history.revisions.length - 1 && entry.csv === history.installedCSV ? 'installed' : '',
  ]);
  const table = [['REVISION', 'CSV', 'VERSION', 'INSTALLED', 'INSTALLPLAN', 'STATUS'], ...rows];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  return `${table.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('   ').trimEnd()).join('\n')}\n`;
}

export function registerHistoryCommand(program: Command): void {
  const command = program
    .command('history')
    .argument('<package>', 'the package (a Subscription\'s spec.name) or the Subscription\'s name')
    .description('list the revisions a Subscription installed: CSV, version, when, and the InstallPlan (olm rollback goes back to one)');
  addClusterOptions(command);
  addNamespaceOption(command, 'namespace of the Subscription', 'operators');
  addOutputOption(command, 'print the history as json or yaml');
  command.action(async (name: string, options: HistoryOptions) => {
    await showHistory(name, options);
  });
}
