import { contribute, definePlugin, satBackend } from '@olm/core';
import { createCdclBackend } from './cdcl-backend.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

/** Provides the `satBackend` extension point with the TypeScript CDCL solver. Swap it for another SAT plugin freely. */
export const satCdclPlugin = definePlugin({
  id: 'plugin-sat-cdcl',
  version: packageJson.version,
  provides: [satBackend],
  init: () => ({ provide: [contribute(satBackend, createCdclBackend())] }),
});
