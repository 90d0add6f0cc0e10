import type { KubeClient, Reconciler } from '@olm/core';
import { OlmError } from '@olm/core';
import { KubeClient as ClientNodeKubeClient } from '@olm/controller-runtime';
import { createOperatorConditionGeneratorReconciler } from './generator-reconciler.js';
import { createOperatorConditionReconciler } from './operator-condition-reconciler.js';
import type { Shared } from './shared.js';

export interface OperatorConditionsControllerOptions {
  /** The client the reconcilers write with (the plugin gives the shared one). */
  readonly client?: KubeClient;
  /** Used to build a client when `client` is not given. */
  readonly kubeconfig?: string;
  /** The clock of `lastTransitionTime`s written into status. */
  readonly clock?: () => Date;
}

export interface OperatorConditionsController {
  /** The `operator-condition-generator` and `operator-condition` reconcilers, for `manager.add` or the `reconcilers` point. */
  readonly reconcilers: readonly Reconciler[];
  /** Closes the client the controller built itself (none when `client` was given). */
  close(): void;
}

/** The OperatorCondition generator and controller, as a library: add the reconcilers to a controller-runtime `Manager`. */
export function createOperatorConditionsController(options: OperatorConditionsControllerOptions): OperatorConditionsController {
  let ownClient: ClientNodeKubeClient | undefined;
  const shared: Shared = {
    client: () => {
      if (options.client) return options.client;
      if (options.kubeconfig === undefined) {
        throw new OlmError('OLM_OPERATOR_CONDITIONS_NO_CLIENT', 'createOperatorConditionsController needs a client or a kubeconfig');
      }
      return (ownClient ??= new ClientNodeKubeClient({ kubeconfig: options.kubeconfig }));
    },
    now: options.clock ?? (() => new Date()),
  };
  return {
    reconcilers: [createOperatorConditionGeneratorReconciler(shared), createOperatorConditionReconciler(shared)],
    close: () => ownClient?.close(),
  };
}
