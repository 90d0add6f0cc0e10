import { Command, Option } from 'commander';
import { readKubeconfig } from '../kubeconfig.js';
import { parseList, parseMilliseconds, parsePort } from '../option-parsers.js';
import { distributionPlugins } from '../plugins.js';
import { startControllers } from '../runtime/controllers.js';
import { logLevels, type LogLevel } from '../runtime/logger.js';
import { untilStopped } from '../runtime/until-stopped.js';

export interface RunOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly inCluster?: boolean;
  readonly namespace: string;
  readonly watchNamespaces: readonly string[];
  readonly metricsPort: number;
  readonly metricsHost: string;
  readonly logLevel: LogLevel;
  readonly leaderElection: boolean;
  readonly exitAfterStart?: boolean;
  readonly runFor?: number;
}

/**
 * `olm run`: this distribution's controllers against any cluster (a real one in production), with
 * leader election, `/metrics`, `/healthz`, `/readyz` and JSON logs on stderr.
 */
export async function runControllers(options: RunOptions, out: (text: string) => void = (text) => process.stdout.write(text)): Promise<void> {
  const controllers = await startControllers({
    kubeconfig: await readKubeconfig(options),
    ...(options.context !== undefined ? { context: options.context } : {}),
    plugins: distributionPlugins({
      namespace: options.namespace,
      watchNamespaces: options.watchNamespaces,
      leaderElection: options.leaderElection,
    }),
    metricsPort: options.metricsPort,
    metricsHost: options.metricsHost,
    logLevel: options.logLevel,
  });
  try {
    out(`olm running: metrics, health and readiness on ${controllers.operationsUrl} (/metrics, /healthz, /readyz)\n`);
    await untilStopped(options);
  } finally {
    await controllers.stop();
  }
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run the OLM controllers against a cluster (a real one in production)')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG)')
    .option('--context <name>', 'kubeconfig context to use instead of the current one')
    .option('--in-cluster', "use the pod's service account (when running inside the cluster)")
    .option('-n, --namespace <namespace>', 'where OLM runs: its leader-election Lease and the global catalog namespace', 'olm')
    .option('--watch-namespaces <list>', 'reconcile only these namespaces (comma separated; default all)', parseList, [])
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz', parsePort, 8080)
    .option('--metrics-host <host>', 'interface of /metrics, /healthz and /readyz', '0.0.0.0')
    .addOption(new Option('--log-level <level>', 'least severe log level written').choices([...logLevels]).default('info'))
    .option('--no-leader-election', 'reconcile without electing a leader (only for a single replica)')
    .addOption(new Option('--exit-after-start', 'stop once everything started').hideHelp())
    .addOption(new Option('--run-for <ms>', 'stop after this many milliseconds').argParser(parseMilliseconds).hideHelp())
    .action(async (options: Omit<RunOptions, 'leaderElection'> & { leaderElection: boolean }) => {
      await runControllers(options);
    });
}
