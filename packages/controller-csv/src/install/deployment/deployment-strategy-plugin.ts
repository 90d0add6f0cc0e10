import { contribute, definePlugin, installStrategies, type Plugin } from '@olm/core';
import { createDeploymentInstallStrategy } from './deployment-install.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../../../package.json' with { type: 'json' };

/**
 * The built-in `deployment` install strategy as a plugin of its own: the CSV controller finds it, as any
 * other strategy, through the `installStrategies` point, so a distribution may leave it out or replace it.
 */
export function createDeploymentInstallStrategyPlugin(): Plugin {
  return definePlugin({
    id: 'install-strategy-deployment',
    version: packageJson.version,
    provides: [installStrategies],
    init: () => ({ provide: [contribute(installStrategies, createDeploymentInstallStrategy())] }),
  });
}

export const deploymentInstallStrategyPlugin = createDeploymentInstallStrategyPlugin();
