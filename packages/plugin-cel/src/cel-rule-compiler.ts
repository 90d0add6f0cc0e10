import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import type { Property } from '@olm/core';
import { guardAst } from './ast-guard.js';
import { invalidRule, limitExceeded } from './errors.js';
import { BudgetExceededError, countNodes, EvaluationBudget, instrumentEvaluation } from './evaluation-budget.js';
import { type CelLimits, resolveCelLimits } from './limits.js';
import { matchesRe2 } from './re2-matches.js';
import { guardRuleText } from './rule-guard.js';
import { semverCompare } from './semver-compare.js';

/** Upstream's message for a rule whose type is not bool (verbatim). */
export const NOT_BOOL_MESSAGE = 'cel expressions must have type Bool';

export interface CelRuleCompilerOptions {
  /** Overrides of `defaultCelLimits`. */
  readonly limits?: Partial<CelLimits>;
  /** How many compiled rules to keep by rule text (many bundles repeat a rule); 0 disables. Default 256. */
  readonly cacheSize?: number;
}

/** The outcome of evaluating a rule for one bundle. */
export interface CelEvaluation {
  /** True only when the rule evaluated to `true` within its limits. */
  readonly matched: boolean;
  /** Why the rule is false when evaluation failed or was stopped (a CEL error, an unparsable version, a limit). */
  readonly error?: unknown;
  /**
   * What the evaluation cost, in about one unit per node evaluated (the rule's nodes once, plus the
   * nodes of a loop's body per step). The same again when the result is remembered.
   */
  readonly cost: number;
}

/** A rule parsed and checked once, evaluated per candidate bundle. */
export interface CompiledCelRule {
  readonly rule: string;
  evaluate(properties: readonly Property[]): CelEvaluation;
}

export interface CelRuleCompiler {
  readonly limits: CelLimits;
  /** Parses, checks and guards a rule. Throws `OLM_CEL_INVALID_RULE` or `OLM_CEL_LIMIT_EXCEEDED`. */
  compile(rule: string): CompiledCelRule;
}

/** The CEL environment of upstream OLM: `properties: list(map(string, dyn))` and `semver_compare(dyn, dyn) -> int`. */
export function createCelEnvironment(limits: CelLimits): Environment {
  return new Environment({
    // cel-go accepts mixed list and map literals as list(dyn)/map(dyn, dyn).
    homogeneousAggregateLiterals: false,
    enableOptionalTypes: false,
    unlistedVariablesAreDyn: false,
    limits: {
      maxAstNodes: limits.maxAstNodes,
      maxDepth: limits.maxDepth,
      maxListElements: limits.maxListElements,
      maxMapEntries: limits.maxMapEntries,
      maxCallArguments: limits.maxCallArguments,
    },
  })
    .registerVariable('properties', 'list<map<string, dyn>>')
    .registerFunction('semver_compare(dyn, dyn): int', semverCompare);
}

export function createCelRuleCompiler(options: CelRuleCompilerOptions = {}): CelRuleCompiler {
  const limits = resolveCelLimits(options.limits);
  const environment = createCelEnvironment(limits);
  const cacheSize = options.cacheSize ?? 256;
  const cache = new Map<string, CompiledCelRule>();

  return {
    limits,
    compile(rule) {
      const cached = cache.get(rule);
      if (cached !== undefined) {
        // Refresh recency: Map iteration order is insertion order.
        cache.delete(rule);
        cache.set(rule, cached);
        return cached;
      }
      const compiled = compileRule(environment, rule, limits);
      if (cacheSize > 0) {
        cache.set(rule, compiled);
        if (cache.size > cacheSize) {
          const oldest = cache.keys().next();
          if (oldest.done !== true) cache.delete(oldest.value);
        }
      }
      return compiled;
    },
  };
}

function compileRule(environment: Environment, rule: string, limits: CelLimits): CompiledCelRule {
  guardRuleText(rule, limits);
  const program = parseRule(environment, rule);
  const facts = guardAst(program.ast, rule, limits);

  const checked = checkRule(program, rule);
  if (checked.type !== 'bool') throw invalidRule(NOT_BOOL_MESSAGE, rule);

  const budget = new EvaluationBudget(limits);
  const baseCost = countNodes(program.ast);
  const instrumented = instrumentEvaluation(program.ast, budget, matchesRe2);
  if (instrumented.comprehensions !== facts.comprehensions || instrumented.matches !== facts.matches) {
    // The library's AST no longer looks like cel-js 8.0.0's: refuse rather than run loops unbounded
    // or patterns on the library's backtracking RegExp.
    throw limitExceeded(
      'maxIterations',
      `cel rule cannot be bounded: found ${facts.comprehensions} comprehensions and ${facts.matches} matches() calls but could instrument ${instrumented.comprehensions} and ${instrumented.matches}`,
      rule,
      undefined,
      'the installed @marcbachmann/cel-js differs from the 8.0.0 this package instruments; install 8.0.0',
    );
  }

  // Results per bundle: evaluation is pure, so a bundle tested twice gets the same answer even when
  // a wall-clock limit or `maxLimitHits` would decide differently the second time.
  const results = new WeakMap<readonly Property[], CelEvaluation>();
  let limitHits = 0;
  let disabled: BudgetExceededError | undefined;

  const run = (properties: readonly Property[]): CelEvaluation => {
    if (disabled !== undefined) return { matched: false, error: disabled, cost: 1 };
    budget.reset(baseCost);
    let evaluation: CelEvaluation;
    try {
      const result: unknown = program({ properties: toCelProperties(properties) });
      // A limit hit inside exists()/all() may be absorbed by CEL's error semantics; it still counts as false.
      evaluation =
        budget.exceeded !== undefined ? { matched: false, error: budget.exceeded, cost: budget.cost } : { matched: result === true, cost: budget.cost };
    } catch (error) {
      evaluation = { matched: false, error: budget.exceeded ?? error, cost: budget.cost };
    }
    if (budget.exceeded !== undefined && ++limitHits >= limits.maxLimitHits) {
      disabled = new BudgetExceededError(
        'maxLimitHits',
        `cel rule disabled: it hit an evaluation limit for ${limitHits} bundles (limit maxLimitHits); it is false for every bundle not evaluated yet; fix the rule, or raise the limits in the plugin-cel options if the rule is trusted`,
      );
    }
    return evaluation;
  };

  return {
    rule,
    evaluate(properties) {
      let evaluation = results.get(properties);
      if (evaluation === undefined) {
        evaluation = run(properties);
        results.set(properties, evaluation);
      }
      return evaluation;
    },
  };
}

function parseRule(environment: Environment, rule: string): ParseResult {
  try {
    return environment.parse(rule);
  } catch (error) {
    throw translateLibraryError(error, rule);
  }
}

function checkRule(program: ParseResult, rule: string): { type: string } {
  let result: ReturnType<ParseResult['check']>;
  try {
    result = program.check();
  } catch (error) {
    throw translateLibraryError(error, rule);
  }
  if (!result.valid) throw translateLibraryError(result.error, rule);
  return { type: result.type ?? 'dyn' };
}

/** Library limit errors become `OLM_CEL_LIMIT_EXCEEDED` naming our option; everything else is an invalid rule. */
function translateLibraryError(error: unknown, rule: string): Error {
  if (error instanceof RangeError) {
    return limitExceeded(
      'maxUnaryChain',
      'cel rule is nested too deeply to parse (the parser ran out of stack)',
      rule,
      error,
      'simplify the rule, and keep maxUnaryChain and maxDepth at values the stack can hold',
    );
  }
  const summary = (error as { summary?: unknown } | undefined)?.summary;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'limit_exceeded' && typeof summary === 'string') {
    const limit = /^Exceeded (\w+)/.exec(summary)?.[1] ?? 'maxAstNodes';
    return limitExceeded(limit, `cel rule ${summary.replace(/^Exceeded/, 'exceeds')}`, rule, error);
  }
  const message = error instanceof Error ? error.message : String(error);
  return invalidRule(message, rule, error);
}

/**
 * The `properties` variable: `{type, value}` per property, as upstream builds it. Properties already
 * have that shape, so they are passed as they are; only a missing `value` (not JSON) is replaced by null.
 */
function toCelProperties(properties: readonly Property[]): readonly Property[] {
  for (const property of properties) {
    if (property.value === undefined) {
      return properties.map((each) => ({ type: each.type, value: each.value ?? null }));
    }
  }
  return properties;
}
