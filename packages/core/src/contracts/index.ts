import { bundlePuller } from './bundle-puller.js';
import { catalogServerCertificate } from './catalog-content-server.js';
import { catalogSourceTypes } from './catalog-source-types.js';
import { constraintEvaluators } from './constraint-evaluators.js';
import { imageSignatureVerifier } from './image-signatures.js';
import { installStrategies } from './install-strategies.js';
import { kubeClient } from './kube-client.js';
import { namespaceResolver } from './namespace-resolver.js';
import { propertyTypes } from './property-types.js';
import { rbacGenerator } from './rbac-generator.js';
import { reconcilers } from './reconcilers.js';
import { informerCache, logger, metrics } from './runtime.js';
import { satBackend } from './sat-backend.js';

/** Every OLM extension point, in one place so an editor lists them all. */
export const olmExtensionPoints = {
  propertyTypes,
  constraintEvaluators,
  catalogSourceTypes,
  installStrategies,
  satBackend,
  namespaceResolver,
  rbacGenerator,
  bundlePuller,
  imageSignatureVerifier,
  catalogServerCertificate,
  reconcilers,
  informerCache,
  kubeClient,
  logger,
  metrics,
} as const;

export * from './bundle-puller.js';
export * from './catalog-content-server.js';
export * from './catalog-source-types.js';
export * from './catalog-source-workload.js';
export * from './constraint-evaluators.js';
export * from './image-signatures.js';
export * from './install-strategies.js';
export * from './kube-client.js';
export * from './meta.js';
export * from './model.js';
export * from './namespace-resolver.js';
export * from './property-types.js';
export * from './rbac-generator.js';
export * from './reconcilers.js';
export * from './runtime.js';
export * from './sat-backend.js';
