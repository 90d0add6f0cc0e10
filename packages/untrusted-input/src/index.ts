export { compileRe2Pattern, PATTERN_INVALID, PatternSyntaxError, type Re2Pattern } from './re2-pattern.js';
export {
  defaultAliasExpansionLimits,
  findExcessiveAliasing,
  indexOfYamlAnchor,
  measureAliasExpansion,
  type AliasExpansion,
  type AliasExpansionLimits,
} from './alias-expansion.js';
