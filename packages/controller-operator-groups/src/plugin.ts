import { contribute, definePlugin, kubeClient, logger, optional, type Plugin, rbacGenerator, reconcilers } from '@olm/core';
import { createOperatorGroupsController, type OperatorGroupsControllerOptions } from './controller.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export type ControllerOperatorGroupsPluginOptions = Omit<OperatorGroupsControllerOptions, 'client' | 'rbacGenerator' | 'logger'>;

/**
 * OperatorGroups as a kernel plugin: contributes the `operatorgroup` reconciler (run by the
 * controller-runtime plugin); consumes the RBAC generator and the shared `kubeClient`, and logs to the
 * `logger` point when provided.
 */
export function createControllerOperatorGroupsPlugin(options: ControllerOperatorGroupsPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-operator-groups',
    version: packageJson.version,
    deps: { client: kubeClient, rbacGenerator, logger: optional(logger) },
    provides: [reconcilers],
    init({ client, rbacGenerator: rbac, logger: log }) {
      const controller = createOperatorGroupsController({ ...options, client, rbacGenerator: rbac, ...(log ? { logger: log } : {}) });
      return { provide: controller.reconcilers.map((reconciler) => contribute(reconcilers, reconciler)) };
    },
  });
}

/** The plugin with default options. */
export const controllerOperatorGroupsPlugin = createControllerOperatorGroupsPlugin();
