import { boot, logger as loggerPoint, metrics as metricsPoint, provision, type Kernel, type Plugin } from '@olm/core';
import { KubeClient, kubeClient } from '@olm/controller-runtime';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { loadPlugins, type LazyPlugin } from '../lazy-plugin.js';
import { createLogger, type LogLevel } from './logger.js';
import { startOperationsServer } from './operations-server.js';

export interface RunningControllers {
  readonly kernel: Kernel;
  /** Where `/metrics`, `/healthz` and `/readyz` answer. */
  readonly operationsUrl: string;
  stop(): Promise<void>;
}

/**
 * Boots the given plugins against a cluster with the process's one kube client, the app's logger and
 * metrics registry, and serves `/metrics`, `/healthz` and `/readyz` (ready once the kernel started,
 * not ready while stopping).
 */
export async function startControllers(options: {
  readonly kubeconfig: string;
  readonly context?: string;
  /** The process's client when the caller has one already (`olm up`); otherwise one is built from `kubeconfig` and closed on stop. */
  readonly client?: KubeClient;
  /** The plugins to boot, as a distribution lists them (imported here) or already loaded. */
  readonly plugins: readonly (LazyPlugin | Plugin)[];
  readonly metricsPort: number;
  readonly metricsHost: string;
  readonly logLevel: LogLevel;
}): Promise<RunningControllers> {
  // A wrong plugin list fails before anything listens.
  const plugins = await loadPlugins(options.plugins);
  const log = createLogger({ level: options.logLevel });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let ready = false;
  const operations = await startOperationsServer({
    port: options.metricsPort,
    host: options.metricsHost,
    metrics: registry,
    isReady: () => ready,
  });
  let kernel: Kernel;
  let ownClient: KubeClient | undefined;
  try {
    const client = options.client ?? (ownClient = new KubeClient({ kubeconfig: options.kubeconfig, ...(options.context !== undefined ? { context: options.context } : {}) }));
    kernel = await boot({
      plugins,
      provide: [provision(kubeClient, client), provision(loggerPoint, log), provision(metricsPoint, registry)],
    });
  } catch (error) {
    ownClient?.close();
    await operations.stop();
    throw error;
  }
  ready = true;
  log.info('controllers started', { plugins: kernel.plugins.map((plugin) => plugin.id), operations: operations.url });
  return {
    kernel,
    operationsUrl: operations.url,
    async stop() {
      ready = false;
      try {
        await kernel.stop();
      } finally {
        ownClient?.close();
        await operations.stop();
      }
    },
  };
}
