// What other packages and apps use: the plugin, and the controller as a library. The decisions behind it
// are tested where they live (import them from their files in this package's tests).
export { createCsvController, type CsvController, type CsvControllerOptions } from './controller.js';
export { createDeploymentInstallStrategy } from './install/deployment/deployment-install.js';
export { createDeploymentInstallStrategyPlugin, deploymentInstallStrategyPlugin } from './install/deployment/deployment-strategy-plugin.js';
export type { CsvMetrics } from './status/metrics.js';
export { controllerCsvPlugin, createControllerCsvPlugin, type ControllerCsvPluginOptions } from './plugin.js';
