export {
  type CelConstraintEvaluatorOptions,
  createCelConstraintEvaluator,
  describeCelPredicate,
} from './cel-constraint-evaluator.js';
export { type CelConstraintValue, parseCelConstraintValue } from './cel-constraint-value.js';
export {
  type CelEvaluation,
  type CelRuleCompiler,
  type CelRuleCompilerOptions,
  type CompiledCelRule,
  createCelEnvironment,
  createCelRuleCompiler,
  NOT_BOOL_MESSAGE,
} from './cel-rule-compiler.js';
export { type CelErrorCode, CelErrorCodes } from './errors.js';
export { type CelLimits, defaultCelLimits, resolveCelLimits } from './limits.js';
export { semverCompare } from './semver-compare.js';
export { CEL_PLUGIN_ID, CEL_PLUGIN_VERSION, celPlugin, createCelPlugin } from './plugin.js';
