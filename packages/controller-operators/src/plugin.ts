import { contribute, definePlugin, kubeClient, type Plugin, reconcilers } from '@olm/core';
import { createOperatorsController, type OperatorsControllerOptions } from './controller.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export type ControllerOperatorsPluginOptions = Omit<OperatorsControllerOptions, 'client' | 'kubeconfig'>;

/**
 * The Operator API's controllers as a kernel plugin: contributes the `adoption-subscription`,
 * `adoption-csv` and `operator` reconcilers (run by the controller-runtime plugin), writing with the shared `kubeClient`.
 */
export function createControllerOperatorsPlugin(options: ControllerOperatorsPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-operators',
    version: packageJson.version,
    deps: { client: kubeClient },
    provides: [reconcilers],
    init({ client }) {
      const controller = createOperatorsController({ ...options, client });
      return { provide: controller.reconcilers.map((reconciler) => contribute(reconcilers, reconciler)) };
    },
  });
}

/** The plugin with default options. */
export const controllerOperatorsPlugin = createControllerOperatorsPlugin();
