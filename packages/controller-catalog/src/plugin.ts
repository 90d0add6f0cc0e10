import {
  bundlePuller,
  catalogSourceTypes,
  constraintEvaluators,
  contribute,
  definePlugin,
  logger,
  metrics,
  optional,
  rbacGenerator,
  reconcilers,
  satBackend,
  type Plugin,
} from '@olm/core';
import { kubeClient } from '@olm/controller-runtime';
import { createResolver, type ResolutionLimits } from '@olm/resolver';
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
  | 'bundleUnpackPollMs'
  | 'opmImage'
  | 'utilImage'
  | 'workloadUserId'
  | 'registryServiceRouting'
>;

/**
 * The Catalog Operator plugin: contributes the `catalogsource`, `namespace-resolution` and
 * `installplan` reconcilers (run by the controller-runtime plugin), built from the booted SAT backend
 * and constraint evaluators (through a resolver), RBAC generator, catalog source types and the shared
 * `kubeClient`; counts into the `metrics` point and logs to the `logger` point when provided.
 */
export function createControllerCatalogPlugin(pluginOptions: ControllerCatalogPluginOptions = {}): Plugin {
  const { resolutionLimits, ...options } = pluginOptions;
  return definePlugin({
    id: 'controller-catalog',
    version: '0.1.0',
    deps: {
      client: kubeClient,
      satBackend,
      constraintEvaluators,
      rbacGenerator,
      catalogSourceTypes,
      bundlePuller: optional(bundlePuller),
      metrics: optional(metrics),
      logger: optional(logger),
    },
    provides: [reconcilers],
    init(deps) {
      const controller = createCatalogController({
        ...options,
        client: deps.client,
        resolver: createResolver({
          satBackend: deps.satBackend,
          constraintEvaluators: deps.constraintEvaluators,
          ...(resolutionLimits ? { limits: resolutionLimits } : {}),
        }),
        rbacGenerator: deps.rbacGenerator,
        catalogSourceTypes: deps.catalogSourceTypes,
        ...(deps.bundlePuller ? { bundlePuller: deps.bundlePuller } : {}),
        // The core contract is the part of prom-client's Registry that plugins use.
        ...(deps.metrics ? { metrics: deps.metrics as Registry } : {}),
        ...(deps.logger ? { logger: deps.logger } : {}),
      });
      return {
        provide: controller.reconcilers.map((reconciler) => contribute(reconcilers, reconciler)),
        stop: () => controller.close(),
      };
    },
  });
}

/** The plugin with default options (global catalog namespace `olm`). */
export const controllerCatalogPlugin = createControllerCatalogPlugin();
