import { createRequire } from 'node:module';
import type { Distribution } from '@olm/olm';
import { distributionPlugins } from './plugins.js';

const require = createRequire(import.meta.url);
// package.json sits one level above both src/ (tests) and dist/ (the built CLI).
const { version } = require('../package.json') as { version: string };

/** `olm-v1`: the olm commands, `up` and `run` booting only OLM v1's controllers. */
export const v1Distribution: Distribution = {
  name: 'olm-v1',
  version,
  description: "OLM v1 only: ClusterCatalogs and ClusterExtensions on the same kernel (an example distribution)",
  // Resolution for Subscriptions is not part of v1; ClusterExtensions resolve inside their controller.
  resolutionPlugins: [],
  distributionPlugins,
  // `up` serves the example catalog as a ClusterCatalog only: no CatalogSource, no PackageManifests.
  v0Apis: false,
};
