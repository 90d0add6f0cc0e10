import { constraintEvaluators, contribute, definePlugin, type Plugin } from '@olm/core';
import { createPropertyConstraintEvaluator } from './property-constraint-evaluator.js';

/** Contributes the `property` kind to `constraintEvaluators`: add it to a distribution's plugin list. */
export const propertyConstraintPlugin: Plugin = definePlugin({
  id: 'plugin-constraint-property',
  version: '0.1.0',
  provides: [constraintEvaluators],
  init: () => ({ provide: [contribute(constraintEvaluators, createPropertyConstraintEvaluator())] }),
});
