import { constraintEvaluators, contribute, definePlugin, type Plugin } from '@olm/core';
import { type CelConstraintEvaluatorOptions, createCelConstraintEvaluator } from './cel-constraint-evaluator.js';
// The version `olm version` lists and distributions check is the package's own.
import packageJson from '../package.json' with { type: 'json' };

export const CEL_PLUGIN_ID = 'plugin-cel';
export const CEL_PLUGIN_VERSION: string = packageJson.version;

/** A `plugin-cel` with non-default limits or an evaluation-error hook. */
export function createCelPlugin(options: CelConstraintEvaluatorOptions = {}): Plugin {
  return definePlugin({
    id: CEL_PLUGIN_ID,
    version: CEL_PLUGIN_VERSION,
    provides: [constraintEvaluators],
    init: () => ({ provide: [contribute(constraintEvaluators, createCelConstraintEvaluator(options))] }),
  });
}

/** Contributes the `cel` kind to `constraintEvaluators`, with the default limits. */
export const celPlugin: Plugin = createCelPlugin();
