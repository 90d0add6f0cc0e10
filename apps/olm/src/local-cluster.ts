// The `@olm/olm/local-cluster` entry: setting up OLM on a local API server and booting a plugin
// list on it (tests, benchmarks, other distributions' tests). Apart from `@olm/olm` because it loads
// the Kubernetes client, which a distribution's CLI loads only for the commands that need it.
export { startControllers, type RunningControllers } from './runtime/controllers.js';
export { installOlmResources, serveCatalogs, type ServedCatalog } from './local-olm.js';
export { exampleCatalogDirectory } from './paths.js';
