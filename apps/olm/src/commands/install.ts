import { Command, Option } from 'commander';
import { ExitCode } from '../cli-errors.js';
import { withClusterSession, type NamespacedCommandOptions } from '../cluster-session.js';
import { parseMilliseconds } from '../option-parsers.js';
import { printDocument } from '../output.js';
import { createProgress, type Progress } from '../progress.js';
import { exitCodeOf, followSubscription, type FollowOutcome } from './follow-subscription.js';
import { choosePackage, type CatalogRef } from './package-lookup.js';
import { addClusterOptions, addNamespaceOption, addOutputOption, type OutputFormat } from './shared-options.js';

export interface InstallOptions extends NamespacedCommandOptions {
  readonly channel?: string;
  /** A version of the channel (`1.1.0`): installs its CSV first, as `--starting-csv` does. */
  readonly version?: string;
  readonly source?: string;
  readonly catalogNamespace: string;
  readonly startingCsv?: string;
  readonly approval: 'Automatic' | 'Manual';
  readonly allNamespaces?: boolean;
  readonly wait: boolean;
  readonly timeout: number;
  readonly pollInterval?: number;
  readonly output?: OutputFormat;
}

/** What `olm install -o json|yaml` prints. */
export interface InstallDocument {
  readonly namespace: string;
  readonly package: string;
  readonly subscription: string;
  readonly catalogSource: CatalogRef;
  readonly channel?: string;
  readonly startingCSV?: string;
  readonly approval: 'Automatic' | 'Manual';
  /** Whether the package, channel and version were checked against the catalogs' PackageManifests. */
  readonly checked: boolean;
  /** What this command created, in order. */
  readonly created: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly namespace?: string }>;
  /** `Created` with `--no-wait`, else how following the Subscription ended. */
  readonly result: 'Created' | FollowOutcome['result'];
  readonly csv?: string;
  readonly message?: string;
}

/**
 * `olm install PACKAGE`: checks the package, channel and version against the catalogs, then
 * creates the namespace, an OperatorGroup when there is none, and a Subscription; then follows
 * resolution, the InstallPlan and the CSV until it succeeds or fails, and says why.
 */
export async function installPackage(
  packageName: string,
  options: InstallOptions,
  progress: Progress = createProgress(),
  out: (text: string) => void = (text) => process.stdout.write(text),
  err: (text: string) => void = (text) => process.stderr.write(text),
): Promise<number> {
  return withClusterSession(options, 'operators', async ({ client, namespace }) => {
    // Human-readable lines go to stderr when stdout carries the -o document.
    const say = options.output ? err : out;
    // Every check before the first write, so that a refused install leaves nothing behind.
    const choice = await choosePackage(
      client,
      {
        packageName,
        namespace,
        catalogNamespace: options.catalogNamespace,
        ...(options.source !== undefined ? { source: options.source } : {}),
        ...(options.channel !== undefined ? { channel: options.channel } : {}),
        ...(options.version !== undefined ? { version: options.version } : {}),
        ...(options.startingCsv !== undefined ? { startingCsv: options.startingCsv } : {}),
      },
      err,
    );
    const { subscribe } = await import('@olm/console');
    const created = await subscribe(
      client,
      {
        namespace,
        packageName,
        catalog: choice.catalog,
        approval: options.approval,
        allNamespaces: options.allNamespaces === true,
        ...(choice.channel !== undefined ? { channel: choice.channel } : {}),
        ...(choice.startingCsv !== undefined ? { startingCsv: choice.startingCsv } : {}),
      },
      say,
    );
    say(
      `subscription ${namespace}/${packageName} created (catalog ${choice.catalog.namespace}/${choice.catalog.name}` +
        `${choice.channel ? `, channel ${choice.channel}` : ''}${choice.startingCsv ? `, starting at ${choice.startingCsv}` : ''})\n`,
    );
    const outcome = options.wait ? await followSubscription(client, namespace, packageName, options, progress) : undefined;
    if (options.output) {
      const document: InstallDocument = {
        namespace,
        package: packageName,
        subscription: packageName,
        catalogSource: choice.catalog,
        ...(choice.channel !== undefined ? { channel: choice.channel } : {}),
        ...(choice.startingCsv !== undefined ? { startingCSV: choice.startingCsv } : {}),
        approval: options.approval,
        checked: choice.checked,
        created,
        result: outcome?.result ?? 'Created',
        ...(outcome?.csv !== undefined ? { csv: outcome.csv } : {}),
        ...(outcome ? { message: outcome.message } : {}),
      };
      await printDocument(document, options.output, out);
    }
    return outcome ? exitCodeOf(outcome) : ExitCode.ok;
  });
}

export function registerInstallCommand(program: Command): void {
  const command = program
    .command('install')
    .argument('<package>', 'the package to install, as named in the catalog')
    .description('subscribe to an operator and follow it until its CSV succeeds or fails (creates the namespace and an OperatorGroup if needed)');
  addClusterOptions(command);
  addNamespaceOption(command, 'namespace to install into', 'operators');
  command
    .option('-c, --channel <channel>', 'channel to follow (default: the package default channel)')
    .option('--version <version>', "install this version of the channel first (its CSV becomes the Subscription's startingCSV)")
    .option('--source <catalogsource>', 'CatalogSource to install from (default: the only one offering the package)')
    .option('--catalog-namespace <namespace>', 'the global catalog namespace', 'olm')
    .option('--starting-csv <name>', 'install this version first (with --approval Manual it stays there)')
    .addOption(new Option('--approval <mode>', 'InstallPlan approval').choices(['Automatic', 'Manual']).default('Automatic'))
    .option('--all-namespaces', 'when creating the OperatorGroup, watch all namespaces')
    .option('--no-wait', 'return once the Subscription is created')
    .option('--timeout <ms>', 'how long to wait for the CSV', parseMilliseconds, 300_000);
  addOutputOption(command, 'print what was created and how it ended as json or yaml (progress stays on stderr)');
  command.action(async (packageName: string, options: InstallOptions) => {
    process.exitCode = await installPackage(packageName, options);
  });
}
