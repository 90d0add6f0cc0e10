import type { Command } from 'commander';
import { openClusterSession, type NamespacedCommandOptions } from '../cluster-session.js';
import { parsePort, parsePositiveInteger } from '../option-parsers.js';
import { untilStopped, type StopConditions } from '../runtime/until-stopped.js';
import { addClusterOptions, addNamespaceOption, addStopOptions } from './shared-options.js';

export interface ConsoleOptions extends NamespacedCommandOptions, StopConditions {
  readonly port: number;
  readonly maxEventStreams?: number;
  readonly maxPendingInstalls?: number;
  readonly maxBodyBytes?: number;
}

/**
 * `olm console`: the web console on 127.0.0.1, talking to the cluster with the user's own kubeconfig
 * identity. Prints the URL to open (it carries the per-run token) and serves until Ctrl-C.
 */
export async function runConsole(options: ConsoleOptions, out: (text: string) => void = (text) => process.stdout.write(text)): Promise<void> {
  const session = await openClusterSession(options, 'operators');
  const { startConsoleServer } = await import('@olm/console');
  try {
    const server = await startConsoleServer({
      client: session.client,
      port: options.port,
      defaultNamespace: session.namespace,
      context: session.context,
      limits: {
        ...(options.maxEventStreams !== undefined ? { maxEventStreams: options.maxEventStreams } : {}),
        ...(options.maxPendingInstalls !== undefined ? { maxPendingInstalls: options.maxPendingInstalls } : {}),
        ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
      },
    });
    out(`OLM console for context ${session.context} (${session.client.server}), acting as that context's user: ${server.url}\n`);
    out('open that URL in a browser (it carries this run\'s token); Ctrl-C stops the console\n');
    await untilStopped(options);
    await server.close();
  } finally {
    session.close();
  }
}

export function registerConsoleCommand(program: Command): void {
  const command = program
    .command('console')
    .description("serve a web console on 127.0.0.1 (catalogs, packages and update graphs, installed operators, plans to approve, why a Subscription is stuck) that acts with your kubeconfig's identity");
  addClusterOptions(command);
  addNamespaceOption(command, 'namespace the console opens on', 'operators');
  command
    .option('--port <port>', 'port on 127.0.0.1 (0: a free one)', parsePort, 0)
    .option('--max-event-streams <count>', 'live-update streams open at once, across tabs (default 16)', parsePositiveInteger)
    .option('--max-pending-installs <count>', 'installs started from the page and not yet confirmed or cancelled (default 32)', parsePositiveInteger)
    .option('--max-body-bytes <bytes>', 'largest request body the page may send (default 65536)', parsePositiveInteger);
  addStopOptions(command);
  command.action(async (options: ConsoleOptions) => {
    await runConsole(options);
  });
}
