import { contribute, definePlugin, kubeClient, type Plugin, reconcilers } from '@olm/core';
import { createOperatorConditionsController, type OperatorConditionsControllerOptions } from './controller.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export type ControllerOperatorConditionsPluginOptions = Omit<OperatorConditionsControllerOptions, 'client' | 'kubeconfig'>;

/**
 * The OperatorCondition controllers as a kernel plugin: contributes the `operator-condition-generator`
 * and `operator-condition` reconcilers (run by the controller-runtime plugin), writing with the shared `kubeClient`.
 */
export function createControllerOperatorConditionsPlugin(options: ControllerOperatorConditionsPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-operator-conditions',
    version: packageJson.version,
    deps: { client: kubeClient },
    provides: [reconcilers],
    init({ client }) {
      const controller = createOperatorConditionsController({ ...options, client });
      return { provide: controller.reconcilers.map((reconciler) => contribute(reconcilers, reconciler)) };
    },
  });
}

/** The plugin with default options. */
export const controllerOperatorConditionsPlugin = createControllerOperatorConditionsPlugin();
