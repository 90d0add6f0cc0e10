import { catalogSourceTypes, contribute, definePlugin, type Plugin } from '@olm/core';
import { createFbcConfigMapSourceType } from './fbc-configmap-source-type.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

/** Contributes the `fbc-configmap` source type to `catalogSourceTypes`: add it to a distribution's plugin list. */
export function createFbcConfigMapPlugin(): Plugin {
  return definePlugin({
    id: 'plugin-catalog-source-fbc-configmap',
    version: packageJson.version,
    provides: [catalogSourceTypes],
    init: () => ({ provide: [contribute(catalogSourceTypes, createFbcConfigMapSourceType())] }),
  });
}
