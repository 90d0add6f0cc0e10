import type { KubeClient, Reconciler } from '@olm/core';
import { OlmError } from '@olm/core';
import { KubeClient as ClientNodeKubeClient } from '@olm/controller-runtime';
import { createCsvAdoptionReconciler } from './csv-adoption-reconciler.js';
import { createOperatorReconciler } from './operator-reconciler.js';
import type { Shared } from './shared.js';
import { createSubscriptionAdoptionReconciler } from './subscription-adoption-reconciler.js';

export interface OperatorsControllerOptions {
  /** The client the reconcilers write with (the plugin gives the shared one). */
  readonly client?: KubeClient;
  /** Used to build a client when `client` is not given. */
  readonly kubeconfig?: string;
}

export interface OperatorsController {
  /** The `adoption-subscription`, `adoption-csv` and `operator` reconcilers, for `manager.add` or the `reconcilers` point. */
  readonly reconcilers: readonly Reconciler[];
  /** Closes the client the controller built itself (none when `client` was given). */
  close(): void;
}

/** The Operator API's controllers, as a library: add the reconcilers to a controller-runtime `Manager`. */
export function createOperatorsController(options: OperatorsControllerOptions): OperatorsController {
  let ownClient: ClientNodeKubeClient | undefined;
  const shared: Shared = {
    client: () => {
      if (options.client) return options.client;
      if (options.kubeconfig === undefined) throw new OlmError('OLM_OPERATORS_NO_CLIENT', 'createOperatorsController needs a client or a kubeconfig');
      return (ownClient ??= new ClientNodeKubeClient({ kubeconfig: options.kubeconfig }));
    },
  };
  return {
    reconcilers: [createSubscriptionAdoptionReconciler(shared), createCsvAdoptionReconciler(shared), createOperatorReconciler(shared)],
    close: () => ownClient?.close(),
  };
}
