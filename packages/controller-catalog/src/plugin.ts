import { bundlePuller, catalogSourceTypes, contribute, definePlugin, imageSignatureVerifier, kubeClient, logger, metrics, namespaceResolver, optional, rbacGenerator, reconcilers, type Plugin } from '@olm/core';
import type { Registry } from 'prom-client';
import { createCatalogController, type CatalogControllerOptions } from './catalog-controller.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export type ControllerCatalogPluginOptions = Pick<
  CatalogControllerOptions,
  | 'globalCatalogNamespace'
  | 'installPlanRetryTimeoutMs'
  | 'catalogCacheTtlMs'
  | 'catalogHealthCheckIntervalMs'
  | 'catalogUnhealthyRetryMs'
  | 'installingRequeueMs'
  | 'bundleUnpackPollMs'
>;

/**
 * The Catalog Operator plugin: contributes the `catalogsource`, `subscription`, `namespace-resolution` and
 * `installplan` reconcilers (run by the controller-runtime plugin), built from the booted
 * `namespaceResolver` (e.g. `@olm/resolver`'s plugin), RBAC generator, catalog source types and the shared
 * `kubeClient`; counts into the `metrics` point and logs to the `logger` point when provided.
 */
export function createControllerCatalogPlugin(options: ControllerCatalogPluginOptions = {}): Plugin {
  return definePlugin({
    id: 'controller-catalog',
    version: packageJson.version,
    deps: {
      client: kubeClient,
      resolver: namespaceResolver,
      rbacGenerator,
      catalogSourceTypes,
      bundlePuller: optional(bundlePuller),
      imageSignatureVerifier: optional(imageSignatureVerifier),
      metrics: optional(metrics),
      logger: optional(logger),
    },
    provides: [reconcilers],
    init(deps) {
      const controller = createCatalogController({
        ...options,
        client: deps.client,
        resolver: deps.resolver,
        rbacGenerator: deps.rbacGenerator,
        catalogSourceTypes: deps.catalogSourceTypes,
        ...(deps.bundlePuller ? { bundlePuller: deps.bundlePuller } : {}),
        ...(deps.imageSignatureVerifier ? { imageSignatureVerifier: deps.imageSignatureVerifier } : {}),
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
