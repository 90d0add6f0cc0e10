import { createKeyedExtensionPoint } from '../kernel/extension-point.js';
import type { Property } from './model.js';

/** What a constraint is tested against: a candidate bundle's properties. */
export interface ConstraintSubject {
  readonly properties: readonly Property[];
}

/** A compiled constraint: it tests a bundle and describes itself in a sentence fragment. */
export interface BundlePredicate {
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
