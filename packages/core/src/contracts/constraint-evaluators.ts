import { createKeyedExtensionPoint } from '../kernel/extension-point.js';
import type { Property } from './model.js';

/** Stable codes of errors about evaluating constraints (recognise them with `hasErrorCode`). */
export const ConstraintErrorCodes = {
  /** A resolution used up its `ResolutionBudget`: its constraints cost too much to evaluate. */
  budgetExhausted: 'OLM_RESOLVER_BUDGET_EXHAUSTED',
} as const;

/**
 * One resolution's budget for evaluating constraints, shared by every predicate test of that
 * resolution, so that many individually cheap constraints cannot add up to an unbounded resolution.
 * The resolver spends one unit per candidate test; an evaluator whose test costs more than a few
 * operations (CEL) spends what it did, in units of about one expression node evaluated (a loop
 * step costs the nodes of its body). Spend the same amount for the same subject even when the
 * answer comes from a cache, so the outcome does not depend on what ran before.
 */
export interface ResolutionBudget {
  /**
   * Spends `units`. Throws an error with code `OLM_RESOLVER_BUDGET_EXHAUSTED` once the resolution has
   * used its budget up: let it propagate out of `test` (never catch it), so the resolution stops.
   */
  spend(units: number): void;
}

/** What a constraint is tested against: a candidate bundle's properties. */
export interface ConstraintSubject {
  readonly properties: readonly Property[];
  /** The budget of the resolution running the test; absent outside a resolution (tools, unit tests). */
  readonly budget?: ResolutionBudget;
}

/** A compiled constraint: it tests a bundle and describes itself in a sentence fragment. */
export interface BundlePredicate {
  /** Whether the bundle satisfies the constraint. Pass `subject` (its `budget`) on to nested predicates. */
  test(subject: ConstraintSubject): boolean;
  /** Upstream's predicate text, e.g. `with package: etcd` or `providing an API with group: g, version: v, kind: k`. */
  describe(): string;
}

export interface ConstraintCompileContext {
  /** Compiles a nested `olm.constraint` value (used by `all`, `any`, `not`). */
  compile(constraint: unknown): BundlePredicate;
  /**
   * The `failureMessage` written next to this kind's key, if any. Upstream shows it only in the
   * `cel` predicate text (`with constraint: "<rule>" and message: "<failureMessage>"`).
   */
  readonly failureMessage?: string;
}

/**
 * Compiles one kind of `olm.constraint` (the key next to `failureMessage`: `gvk`, `package`,
 * `cel`, `all`, `any`, `not`, or a new kind a plugin adds). `value` is the decoded JSON under
 * that key (for `cel`, `{ rule }`). Throws an Error whose message says what is wrong; the resolver
 * wraps it as upstream does (`convert olm.constraint to resolver predicate: <message>`).
 */
export interface ConstraintEvaluator {
  readonly kind: string;
  compile(value: unknown, context: ConstraintCompileContext): BundlePredicate;
}

export const constraintEvaluators = createKeyedExtensionPoint<ConstraintEvaluator>({
  id: 'olm.constraintEvaluators',
  description: 'olm.constraint evaluators by constraint kind',
  keyOf: (evaluator) => evaluator.kind,
  hint: 'boot the resolver plugin (@olm/resolver) for gvk/package/all/any/not, and @olm/plugin-cel for cel',
});
