import {
  catalogSourceTypes,
  constraintEvaluators,
  definePlugin,
  kubeClient,
  logger,
  metrics,
  OlmError,
  rbacGenerator,
  reconcilers,
  satBackend,
  type Plugin,
} from '@olm/core';
import { deferredLogger, KubeClient } from '@olm/controller-runtime';
import { createResolver, type ResolutionLimits, type Resolver } from '@olm/resolver';
import type { Registry } from 'prom-client';
import { createCatalogController, type CatalogControllerOptions } from './catalog-controller.js';

export type ControllerCatalogPluginOptions = {
  /** How much work one namespace's resolution may do (`@olm/resolver`'s `ResolutionLimits`; its defaults otherwise). */
  readonly resolutionLimits?: Partial<ResolutionLimits>;
} & Pick<
  CatalogControllerOptions,
  | 'globalCatalogNamespace'
  | 'installPlanRetryTimeoutMs'
  | 'catalogCacheTtlMs'
  | 'catalogHealthCheckIntervalMs'
  | 'catalogUnhealthyRetryMs'
  | 'installingRequeueMs'
  | 'insecureRegistries'
  | 'bundleUnpackPollMs'
  | 'bundleUnpackFailedRetryMs'
  | 'bundleUnpackTimeoutMs'
  | 'registryRequestTimeoutMs'
  | 'globalPullSecret'
  | 'opmImage'
  | 'utilImage'
  | 'workloadUserId'
  | 'registryServiceRouting'
  | 'registryProxy'
>;

interface Started {
  client: KubeClient;
  resolver: Resolver;
}

/**
 * The Catalog Operator plugin: contributes the `catalogsource`, `namespace-resolution` and
 * `installplan` reconcilers (run by the controller-runtime plugin), wired on start to the booted
 * SAT backend and constraint evaluators (through a resolver), RBAC generator and catalog source types.
 */
export function createControllerCatalogPlugin(pluginOptions: ControllerCatalogPluginOptions = {}): Plugin {
  const { resolutionLimits, ...options } = pluginOptions;
  return definePlugin({
    id: 'controller-catalog',
    version: '0.1.0',
    requires: [kubeClient, satBackend, rbacGenerator],
    register(context) {
      let started: Started | undefined;
      let extensions: Parameters<Parameters<typeof context.onStart>[0]>[0] | undefined;
      const notStarted = () =>
        new OlmError('OLM_CATALOG_NOT_STARTED', 'the controller-catalog plugin has not started yet; its reconcilers run once the kernel has started it');
      const need = <T>(pick: (value: Started) => T) => () => {
        if (!started) throw notStarted();
        return pick(started);
      };
      let metricsRegistry: Registry | undefined;
      const controller = createCatalogController({
        ...options,
        // Built before start, so its logs go to the kernel's logger once there is one.
        logger: deferredLogger(() => extensions?.find(logger)),
        client: need((value) => value.client),
        resolver: need((value) => value.resolver),
        rbacGenerator: () => {
          if (!extensions) throw notStarted();
          return extensions.get(rbacGenerator);
        },
        catalogSourceTypes: () => {
          if (!extensions) throw notStarted();
          return extensions.get(catalogSourceTypes);
        },
        // Registered on start, into the kernel's registry when one is provided.
        metrics: () => {
          if (!extensions) throw notStarted();
          return metricsRegistry;
        },
      });
      for (const reconciler of controller.reconcilers) context.provide(reconcilers, reconciler);
      context.onStart((reader) => {
        extensions = reader;
        metricsRegistry = reader.find(metrics) as Registry | undefined;
        const connection = reader.get(kubeClient);
        started = {
          client: new KubeClient({ kubeconfig: connection.kubeconfig, context: connection.context }),
          resolver: createResolver({
            satBackend: reader.get(satBackend),
            constraintEvaluators: reader.get(constraintEvaluators),
            ...(resolutionLimits ? { limits: resolutionLimits } : {}),
          }),
        };
      });
      context.onStop(async () => {
        await controller.close();
        started?.client.close();
      });
    },
  });
}

/** The plugin with default options (global catalog namespace `olm`). */
export const controllerCatalogPlugin = createControllerCatalogPlugin();
