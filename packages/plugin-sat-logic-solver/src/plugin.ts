import { contribute, definePlugin, satBackend } from '@olm/core';
import { createLogicSolverBackend } from './logic-solver-backend.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

/** Provides the `satBackend` extension point with logic-solver (MiniSat). Swap it for another SAT plugin freely. */
export const satLogicSolverPlugin = definePlugin({
  id: 'plugin-sat-logic-solver',
  version: packageJson.version,
  provides: [satBackend],
  init: () => ({ provide: [contribute(satBackend, createLogicSolverBackend())] }),
});
