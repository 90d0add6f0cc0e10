import { definePlugin, kubeClient, reconcilers, type Plugin } from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import { createOperatorConditionsController, type OperatorConditionsControllerOptions } from './controller.js';

export type ControllerOperatorConditionsPluginOptions = Omit<OperatorConditionsControllerOptions, 'client' | 'kubeconfig'>;

/**
 * The OperatorCondition controllers as a kernel plugin: contributes the `operator-condition-generator`
 * and `operator-condition` reconcilers (run by the controller-runtime plugin); needs the cluster connection.
 */
export function createControllerOperatorConditionsPlugin(options: ControllerOperatorConditionsPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-operator-conditions',
    version: '0.1.0',
    requires: [kubeClient],
    register(context) {
      let client: KubeClient | undefined;
      const controller = createOperatorConditionsController({
        ...options,
        client: () => {
          if (!client) throw new Error('controller-operator-conditions is not started');
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
export const controllerOperatorConditionsPlugin = createControllerOperatorConditionsPlugin();
