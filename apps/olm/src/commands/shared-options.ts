import { Option, type Command } from 'commander';
import { parseMilliseconds, parsePort, parsePositiveInteger } from '../option-parsers.js';
import { logLevels, type LogLevel } from '../runtime/log-levels.js';

/**
 * `--kubeconfig`, `--context` (and `--in-cluster` for the long-running commands): how a command
 * reaches its cluster, with kubectl's precedence (see `loadKubeconfig`).
 */
export function addClusterOptions(command: Command, options: { readonly inCluster?: boolean } = {}): Command {
  command
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: the $KUBECONFIG files, else ~/.kube/config, else the pod\'s service account in a pod)')
    .option('--context <name>', 'kubeconfig context to use instead of the current one');
  if (options.inCluster) command.option('--in-cluster', "use the pod's service account (when running inside the cluster)");
  return command;
}

/** `-n, --namespace`, defaulting as kubectl does to the context's namespace, then to `fallback`. */
export function addNamespaceOption(command: Command, what: string, fallback: string): Command {
  return command.option('-n, --namespace <namespace>', `${what} (default: the kubeconfig context's namespace, else ${fallback})`);
}

/** The formats of `-o`: structured data instead of the human-readable text. */
export const outputFormats = ['json', 'yaml'] as const;
export type OutputFormat = (typeof outputFormats)[number];

/** `-o, --output json|yaml`; a value outside the choices is a usage error listing them. */
export function addOutputOption(command: Command, what = 'print structured data instead of text'): Command {
  return command.addOption(new Option('-o, --output <format>', what).choices([...outputFormats]));
}

/** `--metrics-port`, `--metrics-host`, `--log-level`: where `/metrics`, `/healthz` and `/readyz` answer, and how much is logged. */
export function addOperationsOptions(command: Command, defaults: { readonly logLevel: LogLevel } = { logLevel: 'info' }): Command {
  return command
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz', parsePort, 8080)
    .option('--metrics-host <host>', 'interface of /metrics, /healthz and /readyz', '0.0.0.0')
    .addOption(new Option('--log-level <level>', 'least severe log level written').choices([...logLevels]).default(defaults.logLevel));
}

/** `--resolution-budget`: how much constraint evaluation one resolution may spend (`@olm/resolver`'s `limits.evaluationUnits`). */
export function addResolutionOptions(command: Command): Command {
  return command.option(
    '--resolution-budget <units>',
    'units of constraint evaluation one namespace resolution may spend before it fails with OLM_RESOLVER_BUDGET_EXHAUSTED ' +
      '(about one per CEL expression node evaluated; default 50000000, 1-2 s of CEL)',
    parsePositiveInteger,
  );
}

/** Hidden `--exit-after-start` and `--run-for <ms>` (tests, smoke checks; see `untilStopped`). */
export function addStopOptions(command: Command): Command {
  return command
    .addOption(new Option('--exit-after-start', 'stop once everything started').hideHelp())
    .addOption(new Option('--run-for <ms>', 'stop after this many milliseconds').argParser(parseMilliseconds).hideHelp());
}
