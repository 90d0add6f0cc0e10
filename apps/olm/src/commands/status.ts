import type { CachedObject } from '@olm/core';
import type { Command } from 'commander';
import { readKubeconfig } from '../kubeconfig.js';

type Json = CachedObject & Record<string, any>;

/** Left-aligned columns, as kubectl prints them. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('   ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** `olm status`: every Subscription with its state and CSV phase, and the plans waiting for approval. */
export async function showStatus(
  options: { readonly kubeconfig?: string; readonly namespace?: string; readonly allNamespaces?: boolean },
  out: (text: string) => void = (text) => process.stdout.write(text),
): Promise<void> {
  const kubeconfig = await readKubeconfig(options);
  const { KubeClient } = await import('@olm/controller-runtime');
  const client = new KubeClient({ kubeconfig });
  try {
    const scope = options.allNamespaces ? {} : { namespace: options.namespace ?? 'operators' };
    const subscriptions = (await client.list<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription' }, scope)).items;
    const csvs = (await client.list<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion' }, scope)).items;
    const plans = (await client.list<Json>({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan' }, scope)).items;
    if (subscriptions.length === 0) {
      out(`no subscriptions ${options.allNamespaces ? 'in any namespace' : `in namespace ${scope.namespace}`}; install one with: olm install PACKAGE\n`);
      return;
    }
    const rows = subscriptions.map((subscription) => {
      const namespace = subscription.metadata!.namespace!;
      const current = subscription.status?.currentCSV ?? '';
      const csv = csvs.find((item) => item.metadata?.namespace === namespace && item.metadata?.name === current);
      const problem = (subscription.status?.conditions as Array<{ type: string; status: string; reason?: string }> | undefined)?.find(
        (condition) => condition.status === 'True' && condition.type !== 'CatalogSourcesUnhealthy',
      );
      return [
        namespace,
        subscription.metadata!.name!,
        subscription.spec?.name ?? '',
        subscription.spec?.channel ?? '',
        subscription.status?.state ?? '',
        current,
        csv?.status?.phase ?? '',
        csv?.status?.reason ?? problem?.reason ?? '',
      ];
    });
    out(formatTable(['NAMESPACE', 'SUBSCRIPTION', 'PACKAGE', 'CHANNEL', 'STATE', 'CSV', 'PHASE', 'REASON'], rows));
    const waiting = plans.filter((plan) => plan.status?.phase === 'RequiresApproval');
    for (const plan of waiting) {
      const name = plan.metadata!.name!;
      out(
        `\ninstall plan ${plan.metadata!.namespace}/${name} waits for approval (${(plan.spec?.clusterServiceVersionNames ?? []).join(', ')}):\n` +
          `  kubectl patch installplan ${name} -n ${plan.metadata!.namespace} --type merge -p '{"spec":{"approved":true}}'\n`,
      );
    }
  } finally {
    client.close();
  }
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('show subscriptions, their CSVs and install plans waiting for approval')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG)')
    .option('-n, --namespace <namespace>', 'namespace to show', 'operators')
    .option('-A, --all-namespaces', 'show every namespace')
    .action(async (options: { kubeconfig?: string; namespace?: string; allNamespaces?: boolean }) => {
      await showStatus(options);
    });
}
