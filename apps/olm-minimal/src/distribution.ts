import { createRequire } from 'node:module';
import type { Distribution } from '@olm/olm';
import { distributionPlugins, resolutionPlugins } from './plugins.js';

const require = createRequire(import.meta.url);
// package.json sits one level above both src/ (tests) and dist/ (the built CLI).
const { version } = require('../package.json') as { version: string };

/** `olm-minimal`: every olm command, booting src/plugins.ts. */
export const minimalDistribution: Distribution = {
  name: 'olm-minimal',
  version,
  description: 'OLM without CEL constraints, on the CDCL SAT backend (an example distribution)',
  resolutionPlugins,
  distributionPlugins,
};
