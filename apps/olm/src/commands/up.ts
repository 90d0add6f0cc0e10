import { join, resolve } from 'node:path';
import { boot, kubeClient, provision } from '@olm/core';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { Command, Option } from 'commander';
import { parseMilliseconds, parsePort } from '../option-parsers.js';
import { distributionPlugins } from '../plugins.js';
import { untilStopped } from '../runtime/until-stopped.js';

export interface UpOptions {
  readonly port: number;
  readonly host: string;
  readonly dataDir?: string;
  readonly kubeconfig?: string;
  /** Stop as soon as everything started (tests, smoke checks). */
  readonly exitAfterStart?: boolean;
  /** Stop after this many milliseconds (tests). */
  readonly runFor?: number;
}

/**
 * `olm up`: starts the embedded Kubernetes API server (in memory, or durable in --data-dir), writes its
 * kubeconfig, boots the kernel with this distribution's plugins against it, and runs until Ctrl-C.
 */
export async function runUp(options: UpOptions, out: (text: string) => void = (text) => process.stdout.write(text)): Promise<void> {
  const dataDir = options.dataDir !== undefined ? resolve(options.dataDir) : undefined;
  const kubeconfigPath = resolve(options.kubeconfig ?? join(dataDir ?? '.olm', 'kubeconfig'));
  const server: ApiServer = await startApiServer({
    port: options.port,
    host: options.host,
    kubeconfigPath,
    // People look at `kubectl get pods` after installing an operator: show them some.
    simulateWorkloadPods: true,
    ...(dataDir !== undefined ? { dataDir } : {}),
  });
  try {
    out(`local Kubernetes API server listening on ${server.url} (${dataDir !== undefined ? `data in ${dataDir}` : 'in memory'})\n`);
    out(`kubeconfig written to ${server.kubeconfigPath}\n`);
    out(`  export KUBECONFIG=${server.kubeconfigPath}\n`);
    out('  kubectl get namespaces\n');
    // One local process: no other replica to elect a leader among.
    const plugins = distributionPlugins({ namespace: 'olm', leaderElection: false });
    const kernel = await boot({ plugins, provide: [provision(kubeClient, { kubeconfig: server.kubeconfig })] });
    try {
      out(`booted ${kernel.plugins.length} plugin${kernel.plugins.length === 1 ? '' : 's'}:\n`);
      for (const plugin of kernel.plugins) out(`  ${plugin.id} ${plugin.version}\n`);
      if (!options.exitAfterStart) out('running; press Ctrl-C to stop\n');
      const reason = await untilStopped(options);
      if (reason === 'SIGINT' || reason === 'SIGTERM') out(`received ${reason}, stopping\n`);
    } finally {
      await kernel.stop();
    }
  } finally {
    await server.stop();
  }
  out('stopped\n');
}

export function registerUpCommand(program: Command): void {
  program
    .command('up')
    .description('start OLM locally: a local Kubernetes API server plus the kernel with this distribution\'s plugins')
    .option('--port <port>', 'port of the local API server (0 picks a free one)', parsePort, 6443)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'keep cluster state durable in this directory (default: in memory)')
    .option('--kubeconfig <path>', 'where to write the kubeconfig (default: <data-dir or ./.olm>/kubeconfig)')
    .addOption(new Option('--exit-after-start', 'stop once everything started').hideHelp())
    .addOption(new Option('--run-for <ms>', 'stop after this many milliseconds').argParser(parseMilliseconds).hideHelp())
    .action(async (options: { port: number; host: string; dataDir?: string; kubeconfig?: string; exitAfterStart?: boolean; runFor?: number }) => {
      await runUp({
        port: options.port,
        host: options.host,
        ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
        ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
        ...(options.exitAfterStart ? { exitAfterStart: true } : {}),
        ...(options.runFor !== undefined ? { runFor: options.runFor } : {}),
      });
    });
}
