import { contribute, definePlugin, installStrategies, type Plugin } from '@olm/core';
import { createPodInstallStrategy, type PodInstallStrategyOptions } from './pod-strategy.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

/** The plugin: contributes the `pods` strategy to the `installStrategies` point (`@olm/core`). */
export function createPodInstallStrategyPlugin(options: PodInstallStrategyOptions = {}): Plugin {
  return definePlugin({
    id: 'plugin-install-strategy-pods',
    version: packageJson.version,
    provides: [installStrategies],
    init: () => ({ provide: [contribute(installStrategies, createPodInstallStrategy(options))] }),
  });
}
