import { constraintEvaluators, contribute, definePlugin, type Plugin } from '@olm/core';
import { createPropertyConstraintEvaluator } from './property-constraint-evaluator.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

/** Contributes the `property` kind to `constraintEvaluators`: add it to a distribution's plugin list. */
export const propertyConstraintPlugin: Plugin = definePlugin({
  id: 'plugin-constraint-property',
  version: packageJson.version,
  provides: [constraintEvaluators],
  init: () => ({ provide: [contribute(constraintEvaluators, createPropertyConstraintEvaluator())] }),
});
