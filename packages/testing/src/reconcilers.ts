import type { Reconciler } from '@olm/core';
import { createManager, KubeClient, type Manager, type ManagerOptions } from '@olm/controller-runtime';
import { consoleLoggerIfRequested } from './recording-logger.js';

/** What a controller package's factory returns: its reconcilers, and what to close after them. */
export interface ReconcilerSet {
  readonly reconcilers: readonly Reconciler[];
  close?(): void | Promise<void>;
}

export interface StartReconcilersOptions<Controller extends ReconcilerSet> {
  /** The cluster's kubeconfig document. */
  readonly kubeconfig: string;
  /** Builds the controller on the client it writes with. */
  readonly controller: (client: KubeClient) => Controller;
  /** The client the controller and the manager use; default one of their own, closed by `stop()`. */
  readonly client?: KubeClient;
  /** Manager options (a test logger by default: OLM_TEST_LOG=1 prints warnings and errors). */
  readonly manager?: Omit<ManagerOptions, 'client' | 'kubeconfig'>;
}

export interface RunningReconcilers<Controller extends ReconcilerSet> {
  readonly controller: Controller;
  readonly manager: Manager;
  readonly client: KubeClient;
  /** Stops the manager (reconciles in flight drain), closes the controller, then its own client. */
  stop(): Promise<void>;
}

/** A controller's reconcilers running on a manager of their own, as in a separate OLM process. */
export async function startReconcilers<Controller extends ReconcilerSet>(options: StartReconcilersOptions<Controller>): Promise<RunningReconcilers<Controller>> {
  const ownClient = options.client === undefined;
  const client = options.client ?? new KubeClient({ kubeconfig: options.kubeconfig, requestTimeoutMs: 5_000 });
  const logger = consoleLoggerIfRequested();
  const controller = options.controller(client);
  const manager = createManager({ gracefulShutdownTimeoutMs: 2_000, ...(logger ? { logger } : {}), ...options.manager, client });
  for (const reconciler of controller.reconcilers) manager.add(reconciler);
  const stop = async () => {
    await manager.stop();
    await controller.close?.();
    if (ownClient) client.close();
  };
  try {
    await manager.start();
  } catch (error) {
    await stop();
    throw error;
  }
  return { controller, manager, client, stop };
}
