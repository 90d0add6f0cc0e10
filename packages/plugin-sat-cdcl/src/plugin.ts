import { contribute, definePlugin, satBackend } from '@olm/core';
import { createCdclBackend } from './cdcl-backend.js';

/** Provides the `satBackend` extension point with the TypeScript CDCL solver. Swap it for another SAT plugin freely. */
export const satCdclPlugin = definePlugin({
  id: 'plugin-sat-cdcl',
  version: '0.1.0',
  provides: [satBackend],
  init: () => ({ provide: [contribute(satBackend, createCdclBackend())] }),
});
