import { contribute, definePlugin, installStrategies, kubeClient, logger, metrics, optional, type Plugin, rbacGenerator, reconcilers } from '@olm/core';
import type { Registry } from 'prom-client';
import { createCsvController, type CsvControllerOptions } from './controller.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export type ControllerCsvPluginOptions = Omit<CsvControllerOptions, 'client' | 'kubeconfig' | 'rbacGenerator' | 'installStrategies' | 'metrics' | 'logger'>;

/**
 * The OLM operator as a kernel plugin: contributes the `csv` and `olmconfig` reconcilers (run by the
 * controller-runtime plugin); consumes the RBAC generator, the install strategies of the
 * `installStrategies` point (the `deployment` one is `deploymentInstallStrategyPlugin`'s) and the shared
 * `kubeClient`; counts into the `metrics` point and logs to the `logger` point when provided.
 */
export function createControllerCsvPlugin(options: ControllerCsvPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-csv',
    version: packageJson.version,
    deps: {
      client: kubeClient,
      rbacGenerator,
      installStrategies,
      metrics: optional(metrics),
      logger: optional(logger),
    },
    provides: [reconcilers],
    init({ client, rbacGenerator: rbac, installStrategies: strategies, metrics: registry, logger: log }) {
      const controller = createCsvController({
        ...options,
        client,
        rbacGenerator: rbac,
        installStrategies: strategies,
        // The core contract is the part of prom-client's Registry that plugins use.
        ...(registry ? { metrics: registry as Registry } : {}),
        ...(log ? { logger: log } : {}),
      });
      return {
        provide: [
          // The `operatorgroup` reconciler is @olm/controller-operator-groups' plugin's.
          contribute(reconcilers, controller.csvReconciler),
          contribute(reconcilers, controller.olmConfigReconciler),
        ],
      };
    },
  });
}

/** The plugin with default options. */
export const controllerCsvPlugin = createControllerCsvPlugin();
