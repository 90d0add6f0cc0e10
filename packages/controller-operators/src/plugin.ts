import { definePlugin, kubeClient, reconcilers, type Plugin } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { createOperatorsController, type OperatorsControllerOptions } from './controller.js';

export type ControllerOperatorsPluginOptions = Omit<OperatorsControllerOptions, 'client' | 'kubeconfig'>;

/**
 * The Operator API's controllers as a kernel plugin: contributes the `adoption-subscription`,
 * `adoption-csv` and `operator` reconcilers (run by the controller-runtime plugin); needs the cluster connection.
 */
export function createControllerOperatorsPlugin(options: ControllerOperatorsPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-operators',
    version: '0.1.0',
    requires: [kubeClient],
    register(context) {
      let client: KubeClient | undefined;
      const controller = createOperatorsController({
        ...options,
        client: () => {
          if (!client) throw new Error('controller-operators is not started');
          return client;
        },
      });
      for (const reconciler of controller.reconcilers) context.provide(reconcilers, reconciler);
      context.onStart((booted) => {
        const connection = booted.get(kubeClient);
        client = new KubeClient({ kubeconfig: connection.kubeconfig, context: connection.context });
      });
      context.onStop(() => {
        client?.close();
      });
    },
  });
}

/** The plugin with default options. */
export const controllerOperatorsPlugin = createControllerOperatorsPlugin();
