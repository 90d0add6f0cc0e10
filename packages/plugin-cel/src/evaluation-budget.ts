import type { ASTNode } from '@marcbachmann/cel-js';
import { CelErrorCodes } from './errors.js';
import type { CelLimits } from './limits.js';

/**
 * Per-evaluation spending: comprehension iterations, wall-clock time, and value sizes. The
 * library has no hook for this, so `instrumentEvaluation` wraps the step of every
 * comprehension it expanded; each step calls `tick`. Once exceeded, every further step throws
 * at once, so nested loops unwind in a few operations. It also estimates what the evaluation
 * cost (`cost`: the rule's nodes once, plus the nodes of a loop's body per step), which the
 * predicate spends from the resolution's budget.
 */
export class EvaluationBudget {
  readonly #limits: CelLimits;
  #remaining = 0;
  #deadline = 0;
  #cost = 0;
  #exceeded: BudgetExceededError | undefined;

  constructor(limits: CelLimits) {
    this.#limits = limits;
  }

  /**
   * Starts a new evaluation that costs at least `baseCost` (the rule's node count). Evaluation is
   * synchronous, so one budget per compiled rule suffices.
   */
  reset(baseCost: number): void {
    this.#remaining = this.#limits.maxIterations;
    this.#deadline = performance.now() + this.#limits.maxEvaluationMillis;
    this.#cost = baseCost;
    this.#exceeded = undefined;
  }

  /** The estimated cost of the current evaluation so far, in about one unit per node evaluated. */
  get cost(): number {
    return this.#cost;
  }

  /** The limit hit during the current evaluation, if any. */
  get exceeded(): BudgetExceededError | undefined {
    return this.#exceeded;
  }

  /** Called before each comprehension step, with the element the step is about to see and the nodes of the step. */
  tick(element: unknown, weight: number): void {
    if (this.#exceeded !== undefined) throw this.#exceeded;
    this.#cost += weight;
    this.#remaining -= 1;
    if (this.#remaining < 0) {
      this.#fail('maxIterations', `more than ${this.#limits.maxIterations} comprehension iterations`);
    }
    // performance.now() costs more than a step of a simple rule; sample it.
    if ((this.#remaining & 0x3f) === 0 && performance.now() > this.#deadline) {
      this.#fail('maxEvaluationMillis', `longer than ${this.#limits.maxEvaluationMillis} ms`);
    }
    this.checkValue(element);
  }

  /** Fails the evaluation when a string or list grew past `maxValueLength` (doubling with `+`). */
  checkValue(value: unknown): void {
    if ((typeof value === 'string' || Array.isArray(value)) && value.length > this.#limits.maxValueLength) {
      this.#fail('maxValueLength', `a value of length ${value.length}, more than ${this.#limits.maxValueLength}`);
    }
  }

  /** Fails the evaluation when `matches()` is applied to a string longer than `maxMatchSubjectLength`. */
  checkMatchSubject(value: unknown): void {
    if (typeof value !== 'string') return;
    // Matching costs in proportion to the subject's length, which the node count does not see.
    this.#cost += 2 * value.length;
    if (value.length > this.#limits.maxMatchSubjectLength) {
      this.#fail(
        'maxMatchSubjectLength',
        `matches() on a string of length ${value.length}, more than ${this.#limits.maxMatchSubjectLength}`,
      );
    }
  }

  #fail(limit: keyof CelLimits, what: string): never {
    this.#exceeded = new BudgetExceededError(
      limit,
      `cel rule evaluation stopped: ${what} (limit ${limit}; the rule is false for this bundle; simplify the rule, or raise ${limit} in the plugin-cel options if the rule is trusted)`,
    );
    throw this.#exceeded;
  }
}

/** Thrown inside the library's evaluator to abort; caught by the predicate, which then answers false. */
export class BudgetExceededError extends Error {
  readonly code = CelErrorCodes.limitExceeded;
  readonly limit: keyof CelLimits;

  constructor(limit: keyof CelLimits, message: string) {
    super(message);
    this.name = 'BudgetExceededError';
    this.limit = limit;
  }
}

type Evaluate = (evaluator: unknown, ast: unknown, context: unknown) => unknown;

/** The parts of the library's AST node we rely on beyond its typings (pinned to cel-js 8.0.0; tests catch drift). */
interface InternalNode {
  readonly op: string;
  readonly args: unknown;
  readonly meta?: { readonly alternate?: InternalNode };
  evaluate: Evaluate;
}

interface ComprehensionArgs {
  readonly iterable: InternalNode;
  readonly init: InternalNode;
  readonly step: InternalNode;
}

/**
 * Wraps the `evaluate` of `node` so that `before` sees the evaluation context and `after` the
 * result. On first use the library's prototype `evaluate` assigns a faster own `evaluate` and
 * calls it; the setter captures that assignment so the wrapper stays in front, and the nested
 * call made while resolving goes straight through (the hooks run once per evaluation).
 */
function wrapEvaluate(
  node: InternalNode,
  hooks: { before?: (context: unknown) => void; after?: (value: unknown) => void },
): void {
  let inner: Evaluate = node.evaluate;
  let isResolving = false;
  const { before, after } = hooks;
  const wrapped: Evaluate = (evaluator, ast, context) => {
    if (isResolving) return inner.call(node, evaluator, ast, context);
    before?.(context);
    isResolving = true;
    let value: unknown;
    try {
      value = inner.call(node, evaluator, ast, context);
    } finally {
      isResolving = false;
    }
    after?.(value);
    return value;
  };
  Object.defineProperty(node, 'evaluate', {
    configurable: true,
    get: () => wrapped,
    set: (replacement: Evaluate) => {
      inner = replacement;
    },
  });
}

/** The library's evaluator: `run` evaluates a node in a context. */
interface InternalEvaluator {
  run(node: InternalNode, context: unknown): unknown;
}

/**
 * Evaluates `subject.matches(pattern)` with our RE2 matcher instead of the library's backtracking
 * `RegExp` (both operands are still evaluated by the library, in the same context).
 */
function replaceMatches(
  node: InternalNode,
  receiver: InternalNode,
  pattern: InternalNode,
  budget: EvaluationBudget,
  matches: (subject: unknown, pattern: unknown) => boolean,
): void {
  const evaluate: Evaluate = (evaluator, _ast, context) => {
    const run = evaluator as InternalEvaluator;
    const subject = run.run(receiver, context);
    budget.checkMatchSubject(subject);
    return matches(subject, run.run(pattern, context));
  };
  Object.defineProperty(node, 'evaluate', {
    configurable: true,
    get: () => evaluate,
    set: () => {
      // The library resolves its own evaluate on first use; ours stays.
    },
  });
}

function isNode(value: unknown): value is InternalNode {
  return typeof value === 'object' && value !== null && typeof (value as { op?: unknown }).op === 'string';
}

/**
 * Calls that cost far more than a node: `semver_compare` parses two versions (measured at about 20
 * times an arithmetic node). `matches()` is charged by its subject's length as it runs.
 */
const callWeights: Readonly<Record<string, number>> = { semver_compare: 20 };

/**
 * The cost of one evaluation of `value`, in about one unit per node (a macro counts as its
 * expansion; a node is counted once even where the tree shares it).
 */
export function countNodes(value: unknown, seen = new Set<InternalNode>()): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countNodes(item, seen), 0);
  if (!isNode(value) || seen.has(value)) return 0;
  seen.add(value);
  const alternate = value.meta?.alternate;
  if (alternate !== undefined) return countNodes(alternate, seen);
  if (value.op === 'value' || value.op === 'id') return 1;
  if (value.op === 'comprehension') {
    const { iterable, init, step } = value.args as ComprehensionArgs;
    return 1 + countNodes([iterable, init, step], seen);
  }
  const name = value.op === 'call' || value.op === 'rcall' ? (value.args as readonly unknown[])[0] : undefined;
  const weight = typeof name === 'string' ? (callWeights[name] ?? 1) : 1;
  return weight + countNodes(value.args, seen);
}

/**
 * Instruments every comprehension (expanded macro) and `matches()` call of a checked AST. Returns
 * how many of each were instrumented, so the caller can verify none escaped.
 */
export function instrumentEvaluation(
  root: ASTNode,
  budget: EvaluationBudget,
  matches: (subject: unknown, pattern: unknown) => boolean,
): { comprehensions: number; matches: number } {
  const instrumented = { comprehensions: 0, matches: 0 };
  const seen = new Set<InternalNode>();

  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!isNode(value) || seen.has(value)) return;
    seen.add(value);
    const alternate = value.meta?.alternate;
    if (alternate !== undefined) visit(alternate);
    if (value.op === 'comprehension') {
      const args = value.args as ComprehensionArgs;
      instrumented.comprehensions += 1;
      const weight = countNodes(args.step);
      wrapEvaluate(args.step, {
        before: (context) => budget.tick((context as { iterValue?: unknown }).iterValue, weight),
        after: (result) => {
          // map() pushes each transformed element onto its result list.
          if (Array.isArray(result)) budget.checkValue(result[result.length - 1]);
        },
      });
      visit(args.iterable);
      visit(args.init);
      visit(args.step);
      return;
    }
    if (value.op === 'rcall') {
      const [name, receiver, args] = value.args as [string, InternalNode, InternalNode[]];
      const pattern = args[0];
      if (name === 'matches' && pattern !== undefined && args.length === 1) {
        replaceMatches(value, receiver, pattern, budget, matches);
        instrumented.matches += 1;
      }
      visit(receiver);
      visit(args);
      return;
    }
    if (value.op === 'value' || value.op === 'id') return;
    visit(value.args);
  };

  visit(root);
  return instrumented;
}
