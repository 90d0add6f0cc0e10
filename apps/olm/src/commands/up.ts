import { join, resolve } from 'node:path';
import { boot, kubeClient, provision } from '@olm/core';
import { startApiServer, type ApiServer } from '@olm/local-apiserver';
import { Command, Option } from 'commander';
import { usageError } from '../cli-errors.js';
import { plugins } from '../plugins.js';

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

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) throw usageError(`--port must be a number from 0 to 65535, got "${value}"`);
  return Number(value);
}

function parseMilliseconds(value: string): number {
  if (!/^\d+$/.test(value)) throw usageError(`--run-for must be a number of milliseconds, got "${value}"`);
  return Number(value);
}

/** Resolves on SIGINT/SIGTERM, after `runFor` ms, or at once with `exitAfterStart`. */
function untilStopped(options: UpOptions): Promise<string> {
  if (options.exitAfterStart) return Promise.resolve('exit-after-start');
  return new Promise((resolveStop) => {
    const timer = options.runFor !== undefined ? setTimeout(() => finish('timeout'), options.runFor) : undefined;
    const onInterrupt = () => finish('SIGINT');
    const onTerminate = () => finish('SIGTERM');
    function finish(reason: string): void {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerminate);
      resolveStop(reason);
    }
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onTerminate);
  });
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
