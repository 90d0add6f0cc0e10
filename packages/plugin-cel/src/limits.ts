import { OlmError } from '@olm/core';
import { CelErrorCodes } from './errors.js';

/**
 * Safety limits for untrusted CEL rules. Catalog authors write these rules and every candidate
 * bundle evaluates them, and no CEL library bounds run time, so each cost dimension is capped.
 */
export interface CelLimits {
  /** Maximum rule length in UTF-8 bytes, checked before parsing. */
  readonly maxRuleBytes: number;
  /** Maximum AST nodes the parser may produce (library limit `maxAstNodes`). */
  readonly maxAstNodes: number;
  /** Maximum nesting of calls, selects, indexes, parentheses and aggregates (library limit `maxDepth`). */
  readonly maxDepth: number;
  /** Maximum elements of one list literal (library limit `maxListElements`). */
  readonly maxListElements: number;
  /** Maximum entries of one map literal (library limit `maxMapEntries`). */
  readonly maxMapEntries: number;
  /** Maximum arguments of one call (library limit `maxCallArguments`). */
  readonly maxCallArguments: number;
  /** Longest run of unary operators (`!`, `-`); the library's parser recurses on each without a depth check. */
  readonly maxUnaryChain: number;
  /** Maximum nesting of comprehension macros (`all`, `exists`, `exists_one`, `map`, `filter`) inside each other's bodies. */
  readonly maxComprehensionNesting: number;
  /** Maximum number of comprehension macros in one rule. */
  readonly maxComprehensions: number;
  /** Maximum comprehension iterations in one evaluation (one bundle); beyond it the rule is false for that bundle. */
  readonly maxIterations: number;
  /** Maximum wall-clock milliseconds of one evaluation, checked between comprehension iterations. */
  readonly maxEvaluationMillis: number;
  /**
   * After a rule hit an evaluation limit for this many bundles it is false for every bundle not
   * evaluated yet, so a hostile rule costs at most this many budgets per process, not one per candidate.
   */
  readonly maxLimitHits: number;
  /** Maximum length of a string or list a comprehension iterates with or produces per step (stops `+` doubling bombs). */
  readonly maxValueLength: number;
  /** Maximum length of the string `matches()` is applied to (RE2 is linear in it, times the pattern's size). */
  readonly maxMatchSubjectLength: number;
}

/** Defaults: generous for real OLM rules (tens of AST nodes, one or two comprehensions), tight for bombs. */
export const defaultCelLimits: CelLimits = Object.freeze({
  maxRuleBytes: 8192,
  maxAstNodes: 1000,
  maxDepth: 32,
  maxListElements: 256,
  maxMapEntries: 256,
  maxCallArguments: 8,
  maxUnaryChain: 16,
  maxComprehensionNesting: 3,
  maxComprehensions: 16,
  maxIterations: 20_000,
  maxEvaluationMillis: 50,
  maxLimitHits: 16,
  maxValueLength: 100_000,
  maxMatchSubjectLength: 10_000,
});

/** Merges overrides onto the defaults, rejecting values that are not positive integers. */
export function resolveCelLimits(overrides: Partial<CelLimits> = {}): CelLimits {
  const limits: Record<string, number> = { ...defaultCelLimits };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (!(name in defaultCelLimits)) {
      throw new OlmError(
        CelErrorCodes.invalidOptions,
        `unknown CEL limit ${JSON.stringify(name)}; known limits: ${Object.keys(defaultCelLimits).join(', ')}`,
      );
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new OlmError(CelErrorCodes.invalidOptions, `CEL limit ${name} must be a positive integer, got ${String(value)}`);
    }
    limits[name] = value;
  }
  return Object.freeze(limits) as unknown as CelLimits;
}
