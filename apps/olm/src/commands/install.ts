import type { CachedObject } from '@olm/core';
import type { KubeClient } from '@olm/controller-runtime';
import { Command, Option } from 'commander';
import { ExitCode, usageError } from '../cli-errors.js';
import { readKubeconfig } from '../kubeconfig.js';
import { parseMilliseconds } from '../option-parsers.js';
import { createProgress, type Progress } from '../progress.js';

const operators = 'operators.coreos.com';
const kinds = {
  subscription: { apiVersion: `${operators}/v1alpha1`, kind: 'Subscription' },
  operatorGroup: { apiVersion: `${operators}/v1`, kind: 'OperatorGroup' },
  catalogSource: { apiVersion: `${operators}/v1alpha1`, kind: 'CatalogSource' },
  installPlan: { apiVersion: `${operators}/v1alpha1`, kind: 'InstallPlan' },
  csv: { apiVersion: `${operators}/v1alpha1`, kind: 'ClusterServiceVersion' },
  namespace: { apiVersion: 'v1', kind: 'Namespace' },
} as const;

type Json = CachedObject & Record<string, any>;

export interface InstallOptions {
  readonly kubeconfig?: string;
  readonly namespace: string;
  readonly channel?: string;
  readonly source?: string;
  readonly catalogNamespace: string;
  readonly startingCsv?: string;
  readonly approval: 'Automatic' | 'Manual';
  readonly allNamespaces?: boolean;
  readonly wait: boolean;
  readonly timeout: number;
  readonly pollInterval?: number;
}

/**
 * `olm install PACKAGE`: the namespace, an OperatorGroup when there is none, and a Subscription;
 * then follows resolution, the InstallPlan and the CSV until it succeeds or fails, and says why.
 */
export async function installPackage(
  packageName: string,
  options: InstallOptions,
  progress: Progress = createProgress(),
  out: (text: string) => void = (text) => process.stdout.write(text),
): Promise<number> {
  const kubeconfig = await readKubeconfig(options);
  const { KubeClient } = await import('@olm/controller-runtime');
  const client = new KubeClient({ kubeconfig });
  try {
    const { namespace } = options;
    // Every check before the first write, so that a refused install leaves nothing behind.
    const source = await pickCatalogSource(client, namespace, options.catalogNamespace, options.source);
    const existing = await client.find({ ...kinds.subscription, name: packageName, namespace });
    if (existing) {
      throw usageError(`subscription ${namespace}/${packageName} already exists; see its progress with: olm status -n ${namespace}`);
    }
    const groups = (await client.list(kinds.operatorGroup, { namespace })).items;
    if (groups.length > 1) {
      throw usageError(`namespace ${namespace} has ${groups.length} OperatorGroups; OLM needs exactly one: delete all but one`);
    }
    await ensureNamespace(client, namespace);
    if (groups.length === 0) await createOperatorGroup(client, namespace, options.allNamespaces === true, out);
    await client.create({
      ...kinds.subscription,
      metadata: { name: packageName, namespace },
      spec: {
        name: packageName,
        source: source.name,
        sourceNamespace: source.namespace,
        installPlanApproval: options.approval,
        ...(options.channel !== undefined ? { channel: options.channel } : {}),
        ...(options.startingCsv !== undefined ? { startingCSV: options.startingCsv } : {}),
      },
    } as Json);
    out(`subscription ${namespace}/${packageName} created (catalog ${source.namespace}/${source.name}${options.channel ? `, channel ${options.channel}` : ''})\n`);
    if (!options.wait) return ExitCode.ok;
    return await follow(client, namespace, packageName, options, progress);
  } finally {
    client.close();
  }
}

async function ensureNamespace(client: KubeClient, namespace: string): Promise<void> {
  if (await client.find({ ...kinds.namespace, name: namespace })) return;
  await client.create({ ...kinds.namespace, metadata: { name: namespace } } as Json);
}

async function createOperatorGroup(client: KubeClient, namespace: string, allNamespaces: boolean, out: (text: string) => void): Promise<void> {
  await client.create({
    ...kinds.operatorGroup,
    metadata: { name: namespace, namespace },
    spec: allNamespaces ? {} : { targetNamespaces: [namespace] },
  } as Json);
  out(`operatorgroup ${namespace}/${namespace} created (watching ${allNamespaces ? 'all namespaces' : `namespace ${namespace}`})\n`);
}

/** The CatalogSource to subscribe to: the one named (own namespace first), else the only one visible. */
async function pickCatalogSource(
  client: KubeClient,
  namespace: string,
  catalogNamespace: string,
  name?: string,
): Promise<{ name: string; namespace: string }> {
  const visible = [
    ...(await client.list(kinds.catalogSource, { namespace })).items,
    ...(namespace === catalogNamespace ? [] : (await client.list(kinds.catalogSource, { namespace: catalogNamespace })).items),
  ].map((catalog) => ({ name: catalog.metadata!.name!, namespace: catalog.metadata!.namespace! }));
  const found = name === undefined ? visible : visible.filter((catalog) => catalog.name === name);
  if (name !== undefined && found.length === 0) {
    throw usageError(`CatalogSource ${name} not found in ${namespace} or ${catalogNamespace}; visible: ${visible.map((c) => `${c.namespace}/${c.name}`).join(', ') || 'none'}`);
  }
  if (found.length === 1 || name !== undefined) return found[0]!;
  if (found.length === 0) {
    throw usageError(`no CatalogSource in ${namespace} or ${catalogNamespace}: create one (see examples/catalogsource.yaml) or pass --source`);
  }
  throw usageError(`several CatalogSources could provide it (${found.map((c) => `${c.namespace}/${c.name}`).join(', ')}): pass --source NAME`);
}

const condition = (object: Json | undefined, type: string) =>
  (object?.status?.conditions as Array<{ type: string; status: string; reason?: string; message?: string }> | undefined)?.find(
    (entry) => entry.type === type && entry.status === 'True',
  );

async function follow(client: KubeClient, namespace: string, name: string, options: InstallOptions, progress: Progress): Promise<number> {
  const deadline = Date.now() + options.timeout;
  const poll = options.pollInterval ?? 500;
  for (;;) {
    const subscription = await client.find<Json>({ ...kinds.subscription, name, namespace });
    if (!subscription) {
      progress.done(`subscription ${namespace}/${name} was deleted`);
      return ExitCode.failed;
    }
    const failed = condition(subscription, 'ResolutionFailed');
    if (failed) {
      progress.done(`resolution failed (${failed.reason}): ${failed.message}`);
      return ExitCode.failed;
    }
    const unhealthy = condition(subscription, 'CatalogSourcesUnhealthy');
    const planName = subscription.status?.installPlanRef?.name as string | undefined;
    const plan = planName ? await client.find<Json>({ ...kinds.installPlan, name: planName, namespace }) : undefined;
    const csvName = subscription.status?.currentCSV as string | undefined;
    const csv = csvName ? await client.find<Json>({ ...kinds.csv, name: csvName, namespace }) : undefined;

    if (csv?.status?.phase === 'Succeeded') {
      progress.done(`${csvName} installed in ${namespace}: Succeeded`);
      return ExitCode.ok;
    }
    if (csv?.status?.phase === 'Failed') {
      progress.done(`${csvName} failed (${csv.status.reason}): ${csv.status.message}`);
      return ExitCode.failed;
    }
    if (plan?.status?.phase === 'Failed') {
      const installed = (plan.status.conditions as Array<{ type: string; message?: string }> | undefined)?.find((c) => c.type === 'Installed');
      progress.done(`install plan ${planName} failed: ${installed?.message ?? plan.status.message ?? 'no reason given'}`);
      return ExitCode.failed;
    }
    if (Date.now() > deadline) {
      progress.done(`timed out after ${options.timeout} ms; see: olm status -n ${namespace}`);
      return ExitCode.failed;
    }
    progress.update(
      csv
        ? `${csvName}: ${csv.status?.phase || 'created'}${csv.status?.message ? ` (${csv.status.message})` : ''}`
        : plan?.status?.phase === 'RequiresApproval'
          ? `install plan ${planName} waits for approval: kubectl patch installplan ${planName} -n ${namespace} --type merge -p '{"spec":{"approved":true}}'`
          : plan
            ? `install plan ${planName}: ${plan.status?.phase ?? 'created'}`
            : unhealthy
              ? `waiting for catalogs: ${unhealthy.message}`
              : 'resolving dependencies',
    );
    await new Promise((resolve) => setTimeout(resolve, poll));
  }
}

export function registerInstallCommand(program: Command): void {
  program
    .command('install')
    .argument('<package>', 'the package to install, as named in the catalog')
    .description('subscribe to an operator and follow it until its CSV succeeds or fails (creates the namespace and an OperatorGroup if needed)')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG)')
    .option('-n, --namespace <namespace>', 'namespace to install into', 'operators')
    .option('-c, --channel <channel>', 'channel to follow (default: the package default channel)')
    .option('--source <catalogsource>', 'CatalogSource to install from (default: the only one visible)')
    .option('--catalog-namespace <namespace>', 'the global catalog namespace', 'olm')
    .option('--starting-csv <name>', 'install this version first (with --approval Manual it stays there)')
    .addOption(new Option('--approval <mode>', 'InstallPlan approval').choices(['Automatic', 'Manual']).default('Automatic'))
    .option('--all-namespaces', 'when creating the OperatorGroup, watch all namespaces')
    .option('--no-wait', 'return once the Subscription is created')
    .option('--timeout <ms>', 'how long to wait for the CSV', parseMilliseconds, 300_000)
    .action(async (packageName: string, options: InstallOptions) => {
      process.exitCode = await installPackage(packageName, options);
    });
}

