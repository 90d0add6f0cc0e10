import type { BundlePredicate, ConstraintEvaluator } from '@olm/core';
import { parseCelConstraintValue } from './cel-constraint-value.js';
import { type CelRuleCompilerOptions, type CompiledCelRule, createCelRuleCompiler } from './cel-rule-compiler.js';
import { goQuote } from '@olm/go-format';

export interface CelConstraintEvaluatorOptions extends CelRuleCompilerOptions {
  /**
   * Called when a rule fails to evaluate for a bundle (a CEL error, an unparsable version, a limit),
   * which makes the constraint false for that bundle. For logs and metrics; must not throw.
   */
  readonly onEvaluationError?: (error: unknown, rule: string) => void;
}

/** The `cel` evaluator of `olm.constraint`: compiles the rule once, tests it per candidate bundle. */
export function createCelConstraintEvaluator(options: CelConstraintEvaluatorOptions = {}): ConstraintEvaluator {
  const compiler = createCelRuleCompiler(options);
  const { onEvaluationError } = options;
  return {
    kind: 'cel',
    compile(value, context) {
      const { rule } = parseCelConstraintValue(value);
      const compiled = compiler.compile(rule);
      // Upstream prints the failureMessage written next to `cel` (empty when there is none).
      return createCelPredicate(compiled, context.failureMessage ?? '', onEvaluationError);
    },
  };
}

/** Upstream's predicate text for a CEL constraint: `with constraint: "<rule>" and message: "<failureMessage>"`. */
export function describeCelPredicate(rule: string, failureMessage: string): string {
  return `with constraint: ${goQuote(rule)} and message: ${goQuote(failureMessage)}`;
}

function createCelPredicate(
  compiled: CompiledCelRule,
  failureMessage: string,
  onEvaluationError: CelConstraintEvaluatorOptions['onEvaluationError'],
): BundlePredicate {
  const description = describeCelPredicate(compiled.rule, failureMessage);
  return {
    test({ properties, budget }) {
      const { matched, error, cost } = compiled.evaluate(properties);
      if (error !== undefined && onEvaluationError !== undefined) {
        try {
          onEvaluationError(error, compiled.rule);
        } catch {
          // A failing logger must not change resolution.
        }
      }
      // Spent after the evaluation, outside any catch: exhausting the resolution's budget ends it.
      budget?.spend(cost);
      return matched;
    },
    describe: () => description,
  };
}
