import {
  definePlugin,
  installStrategies,
  kubeClient,
  logger,
  metrics,
  rbacGenerator,
  reconcilers,
  type ExtensionReader,
  type Plugin,
} from '@olm/core';
import { KubeClient } from '@olm/controller-runtime';
import type { Registry } from 'prom-client';
import { createCsvController, type CsvControllerOptions } from './controller.js';

export type ControllerCsvPluginOptions = Omit<CsvControllerOptions, 'client' | 'kubeconfig' | 'rbacGenerator' | 'installStrategies' | 'metrics' | 'logger'>;

/**
 * The OLM operator as a kernel plugin: contributes the `deployment` install strategy and the
 * `csv` and `operatorgroup` reconcilers (run by the controller-runtime plugin); needs an RBAC
 * generator and the cluster connection; counts into the `metrics` point when provided.
 */
export function createControllerCsvPlugin(options: ControllerCsvPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-csv',
    version: '0.1.0',
    requires: [rbacGenerator, kubeClient],
    register(context) {
      let client: KubeClient | undefined;
      let extensions: ExtensionReader | undefined;
      const started = () => {
        if (!client || !extensions) throw new Error('controller-csv is not started');
        return { client, extensions };
      };
      const controller = createCsvController({
        ...options,
        client: () => started().client,
        rbacGenerator: () => started().extensions.get(rbacGenerator),
        installStrategies: () => started().extensions.get(installStrategies),
        metrics: () => started().extensions.find(metrics) as Registry | undefined,
        logger: () => extensions?.find(logger),
      });
      context.provide(installStrategies, controller.deploymentStrategy);
      for (const reconciler of controller.reconcilers) context.provide(reconcilers, reconciler);
      context.onStart((booted) => {
        const connection = booted.get(kubeClient);
        client = new KubeClient({ kubeconfig: connection.kubeconfig, context: connection.context });
        extensions = booted;
      });
      context.onStop(() => {
        client?.close();
      });
    },
  });
}

/** The plugin with default options. */
export const controllerCsvPlugin = createControllerCsvPlugin();
