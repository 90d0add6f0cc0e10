import { contribute, definePlugin, satBackend } from '@olm/core';
import { createLogicSolverBackend } from './logic-solver-backend.js';

/** Provides the `satBackend` extension point with logic-solver (MiniSat). Swap it for another SAT plugin freely. */
export const satLogicSolverPlugin = definePlugin({
  id: 'plugin-sat-logic-solver',
  version: '0.1.0',
  provides: [satBackend],
  init: () => ({ provide: [contribute(satBackend, createLogicSolverBackend())] }),
});
