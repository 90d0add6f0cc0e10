import { ConstraintErrorCodes, hasErrorCode, OlmError, SatErrorCodes, type SatBackend, type SatLiteral, type SatOutcome, type SatSolver } from '@olm/core';
import { ResolverErrorCodes, invalidInput } from './errors.js';
import { runToEnd, straightThrough, type Pacer, type Steps } from './work-slices.js';

/** What a constraint says about its subject variable (upstream's solver constraint kinds). */
export type ConstraintRule =
  | { readonly kind: 'mandatory' }
  | { readonly kind: 'prohibited' }
  /** If the subject is chosen, at least one of `ids` is; earlier ids are preferred. */
  | { readonly kind: 'dependency'; readonly ids: readonly string[] }
  | { readonly kind: 'conflict'; readonly id: string }
  | { readonly kind: 'atMost'; readonly n: number; readonly ids: readonly string[] };

export type SolverConstraint = ConstraintRule & {
  /** The sentence shown when this constraint is part of a conflict; a default is derived otherwise. */
  readonly message?: string;
  /** Extra facts carried into `OLM_RESOLVER_UNSATISFIABLE` details (e.g. authors' failureMessages). */
  readonly failureMessages?: readonly string[];
};

export interface SolverVariable {
  readonly id: string;
  readonly constraints: readonly SolverConstraint[];
}

/** A constraint together with the variable it applies to, as listed in an unsatisfiable result. */
export interface AppliedConstraint {
  readonly variable: string;
  readonly kind: ConstraintRule['kind'];
  readonly message: string;
  readonly failureMessages?: readonly string[];
}

export interface SolveStats {
  solverCalls: number;
  variables: number;
  clauses: number;
  cardinalityConstraints: number;
}

export function emptyStats(): SolveStats {
  return { solverCalls: 0, variables: 0, clauses: 0, cardinalityConstraints: 0 };
}

/** Upstream's default sentence for a constraint without a message of its own. */
export function describeConstraint(subject: string, rule: ConstraintRule): string {
  switch (rule.kind) {
    case 'mandatory':
      return `${subject} is mandatory`;
    case 'prohibited':
      return `${subject} is prohibited`;
    case 'dependency':
      return rule.ids.length === 0
        ? `${subject} has a dependency without any candidates to satisfy it`
        : `${subject} requires at least one of ${rule.ids.join(', ')}`;
    case 'conflict':
      return `${subject} conflicts with ${rule.id}`;
    case 'atMost':
      return `${subject} permits at most ${rule.n} of ${rule.ids.join(', ')}`;
  }
}

export interface SolveOptions {
  /** Fail with `OLM_RESOLVER_BUDGET_EXHAUSTED` rather than make more SAT calls than this (counted in `stats`). */
  readonly maxSolverCalls?: number;
  /** Passed to each SAT call (`SatSolveOptions.maxConflicts`); a call that gives up fails with `OLM_RESOLVER_BUDGET_EXHAUSTED`. */
  readonly maxConflictsPerCall?: number;
}

/** A solver wrapper that counts what the resolver reports in its stats, and bounds the number of solves. */
class CountingSolver {
  constructor(
    private readonly inner: SatSolver,
    readonly stats: SolveStats,
    private readonly options: SolveOptions,
  ) {}
  newVariable(): number {
    this.stats.variables++;
    return this.inner.newVariable();
  }
  addClause(literals: readonly SatLiteral[]): void {
    this.stats.clauses++;
    this.inner.addClause(literals);
  }
  addAtMostOne(literals: readonly SatLiteral[], condition?: SatLiteral): void {
    this.stats.cardinalityConstraints++;
    this.inner.addAtMostOne(literals, condition);
  }
  solve(assumptions: readonly SatLiteral[]): SatOutcome {
    const { maxSolverCalls = Infinity, maxConflictsPerCall } = this.options;
    if (this.stats.solverCalls >= maxSolverCalls) {
      throw searchTooCostly(`the SAT search used up the budget of ${maxSolverCalls} solver calls before settling which operators to choose`, 'solverCalls', maxSolverCalls);
    }
    this.stats.solverCalls++;
    if (maxConflictsPerCall === undefined) return this.inner.solve(assumptions);
    try {
      return this.inner.solve(assumptions, { maxConflicts: maxConflictsPerCall });
    } catch (error) {
      if (!hasErrorCode(error, SatErrorCodes.limitExceeded)) throw error;
      throw searchTooCostly(`a SAT call gave up after ${maxConflictsPerCall} conflicts`, 'solverConflicts', maxConflictsPerCall, error);
    }
  }
}

function searchTooCostly(what: string, limit: 'solverCalls' | 'solverConflicts', value: number, cause?: unknown): OlmError {
  return new OlmError(
    ConstraintErrorCodes.budgetExhausted,
    `resolution stopped: ${what}; the dependencies among the catalogs' bundles are too intricate to resolve: simplify them in the catalog, ` +
      `or raise the resolution budget (resolver option limits.${limit}) if the catalogs are trusted`,
    { cause, details: { budget: limit, limit: value } },
  );
}

interface Activation {
  readonly literal: SatLiteral;
  readonly variable: string;
  readonly constraint: SolverConstraint;
}

/**
 * Chooses variables as upstream's solver does. Every constraint is assumed through an activation
 * literal; mandatory variables are anchors. The search then walks anchors in input order: choosing a
 * variable queues each of its dependency lists (FIFO); a list already met by an earlier choice needs
 * nothing, otherwise its first candidate consistent with everything chosen so far is taken. Because
 * each step is checked with a full SAT call (or with the last model, when that already proves it),
 * no step ever needs undoing, and the result equals upstream's backtracking search. The chosen set
 * is closed under dependencies, so upstream's final "fewest extra variables" pass adds nothing.
 *
 * Returns the chosen ids in input order. Throws `OLM_RESOLVER_UNSATISFIABLE` with a minimal set of
 * conflicting constraints (found by deletion over activation literals) when nothing satisfies them.
 */
export function solveVariables(variables: readonly SolverVariable[], backend: SatBackend, stats: SolveStats = emptyStats(), options: SolveOptions = {}): string[] {
  return solveWithReasons(variables, backend, stats, options).chosen;
}

/** Why the search chose a variable: it is an anchor, or it was picked for a dependency of another. */
export type ChoiceReason =
  | { readonly kind: 'anchor' }
  | { readonly kind: 'dependency'; readonly by: string; readonly constraint: SolverConstraint; readonly option: number };

/** `solveVariables`, also telling which constraint pulled each chosen variable in. */
export function solveWithReasons(
  variables: readonly SolverVariable[],
  backend: SatBackend,
  stats: SolveStats = emptyStats(),
  options: SolveOptions = {},
): { chosen: string[]; reasons: Map<string, ChoiceReason> } {
  return runToEnd(solveInSteps(variables, backend, stats, options, straightThrough));
}

type Solution = { chosen: string[]; reasons: Map<string, ChoiceReason> };

/** `solveWithReasons` as steps that pause between SAT calls (and within long loops) when `pacer` says so. */
export function* solveInSteps(
  variables: readonly SolverVariable[],
  backend: SatBackend,
  stats: SolveStats,
  options: SolveOptions,
  pacer: Pacer,
): Steps<Solution> {
  try {
    return yield* solveOnce(variables, backend, stats, options, pacer);
  } catch (error) {
    // A backend that shares state between problems may run out of room because of earlier ones;
    // its next solver starts afresh, so one retry tells a full backend from a problem too large.
    if (!hasErrorCode(error, SatErrorCodes.resourceExhausted)) throw error;
    return yield* solveOnce(variables, backend, stats, options, pacer);
  }
}

function* solveOnce(
  variables: readonly SolverVariable[],
  backend: SatBackend,
  stats: SolveStats,
  options: SolveOptions,
  pacer: Pacer,
): Steps<Solution> {
  const index = new Map<string, number>();
  variables.forEach((variable, position) => {
    if (index.has(variable.id)) throw invalidInput(`duplicate identifier ${JSON.stringify(variable.id)} in input`);
    index.set(variable.id, position);
  });
  for (const variable of variables) {
    for (const constraint of variable.constraints) {
      const referenced = constraint.kind === 'dependency' || constraint.kind === 'atMost' ? constraint.ids : constraint.kind === 'conflict' ? [constraint.id] : [];
      for (const id of referenced) {
        if (!index.has(id)) throw invalidInput(`variable ${JSON.stringify(id)} referenced but not provided`);
      }
    }
  }
  if (variables.length === 0) return { chosen: [], reasons: new Map() };

  // Searching needs the constraints only as they are: encode them for good. Only when they conflict
  // is a second encoding built, with one activation literal per constraint, to find which conflict.
  const raw = backend.createSolver();
  try {
    const solver = new CountingSolver(raw, stats, options);
    const literalOf = variables.map(() => solver.newVariable());
    const lit = literalLookup(index, literalOf);
    yield* encode(variables, solver, lit, false, pacer);
    if (pacer.isDue()) yield;
    const first = solver.solve([]);
    if (first.satisfiable) return yield* search(variables, solver, literalOf, lit, [], first, pacer);
  } finally {
    raw.dispose();
  }
  const explainer = backend.createSolver();
  try {
    const solver = new CountingSolver(explainer, stats, options);
    const literalOf = variables.map(() => solver.newVariable());
    const lit = literalLookup(index, literalOf);
    const activations = yield* encode(variables, solver, lit, true, pacer);
    if (pacer.isDue()) yield;
    const outcome = solver.solve(activations.map((activation) => activation.literal));
    if (outcome.satisfiable) throw new OlmError(ResolverErrorCodes.invalidInput, 'internal error: the SAT backend answered differently for the same constraints');
    throw notSatisfiable(yield* minimalCore(solver, activations, outcome, pacer));
  } finally {
    explainer.dispose();
  }
}

interface LiteralLookup {
  (id: string): number;
  /** The literals of a list of ids, computed once per list (lists are shared between constraints). */
  all(ids: readonly string[]): number[];
}

function literalLookup(index: ReadonlyMap<string, number>, literalOf: readonly number[]): LiteralLookup {
  const lists = new WeakMap<readonly string[], number[]>();
  const lookup = ((id: string) => literalOf[index.get(id)!]!) as LiteralLookup;
  lookup.all = (ids) => {
    let list = lists.get(ids);
    if (!list) {
      list = ids.map((id) => literalOf[index.get(id)!]!);
      lists.set(ids, list);
    }
    return list;
  };
  return lookup;
}

/**
 * Encodes every constraint. With `withActivations`, each gets an activation literal it holds under
 * (returned, for explaining conflicts); otherwise each holds unconditionally and none is returned.
 */
function* encode(variables: readonly SolverVariable[], solver: CountingSolver, lit: LiteralLookup, withActivations: boolean, pacer: Pacer): Steps<Activation[]> {
  const activations: Activation[] = [];
  const implied = withActivations ? new Set<SolverConstraint>() : impliedAtMostOnes(variables);
  for (const variable of variables) {
    if (pacer.isDue()) yield;
    const subject = lit(variable.id);
    for (const constraint of variable.constraints) {
      let literal: SatLiteral | undefined;
      const activation = () => (withActivations ? solver.newVariable() : undefined);
      const guard = (active: number | undefined) => (active === undefined ? [] : [-active]);
      switch (constraint.kind) {
        case 'mandatory':
          if (withActivations) literal = subject;
          else solver.addClause([subject]);
          break;
        case 'prohibited':
          if (withActivations) literal = -subject;
          else solver.addClause([-subject]);
          break;
        case 'dependency':
          literal = activation();
          solver.addClause([...guard(literal), -subject, ...lit.all(constraint.ids)]);
          break;
        case 'conflict':
          literal = activation();
          solver.addClause([...guard(literal), -subject, -lit(constraint.id)]);
          break;
        case 'atMost':
          if (implied.has(constraint)) break;
          literal = activation();
          encodeAtMost(solver, literal, constraint.n, lit.all(constraint.ids));
          break;
      }
      if (literal !== undefined) activations.push({ literal, variable: variable.id, constraint });
    }
  }
  return activations;
}

/**
 * At-most-one constraints whose members all belong to another at-most-one constraint add nothing
 * when every constraint holds (the usual case: an API provided only by versions of one package).
 * Leaving them out keeps large problems inside small solvers; identical ones are kept once.
 */
function impliedAtMostOnes(variables: readonly SolverVariable[]): Set<SolverConstraint> {
  const groups: Array<{ constraint: SolverConstraint; members: ReadonlySet<string> }> = [];
  for (const variable of variables) {
    for (const constraint of variable.constraints) {
      if (constraint.kind === 'atMost' && constraint.n === 1) groups.push({ constraint, members: new Set(constraint.ids) });
    }
  }
  const groupsOf = new Map<string, number[]>();
  groups.forEach((group, position) => {
    for (const member of group.members) {
      const list = groupsOf.get(member);
      if (list) list.push(position);
      else groupsOf.set(member, [position]);
    }
  });
  const implied = new Set<SolverConstraint>();
  groups.forEach((group, position) => {
    const [first] = group.members;
    if (first === undefined) return;
    for (const other of groupsOf.get(first) ?? []) {
      if (other === position || implied.has(groups[other]!.constraint)) continue;
      const container = groups[other]!.members;
      const isSame = container.size === group.members.size;
      if (container.size < group.members.size || (isSame && other > position)) continue;
      if ([...group.members].every((member) => container.has(member))) {
        implied.add(group.constraint);
        return;
      }
    }
  });
  return implied;
}

/** `activation → at most n of members` (unconditional without activation), through the backend's at-most-one when n = 1. */
function encodeAtMost(solver: CountingSolver, activation: number | undefined, n: number, members: readonly number[]): void {
  const guard = activation === undefined ? [] : [-activation];
  if (members.length <= n) return;
  if (n <= 0) {
    for (const member of members) solver.addClause([...guard, -member]);
    return;
  }
  if (n === 1) {
    solver.addAtMostOne(members, activation);
    return;
  }
  // n ≥ 2 (never produced by the resolver itself): forbid every (n+1)-subset.
  const subset: number[] = [];
  const visit = (start: number) => {
    if (subset.length === n + 1) {
      solver.addClause([...guard, ...subset.map((member) => -member)]);
      return;
    }
    for (let i = start; i < members.length; i++) {
      subset.push(members[i]!);
      visit(i + 1);
      subset.pop();
    }
  };
  visit(0);
}

interface Choice {
  readonly candidates: readonly number[];
  readonly reason?: { readonly by: string; readonly constraint: SolverConstraint };
}

function* search(
  variables: readonly SolverVariable[],
  solver: CountingSolver,
  literalOf: readonly number[],
  lit: LiteralLookup,
  baseline: readonly SatLiteral[],
  firstModel: SatOutcome & { satisfiable: true },
  pacer: Pacer,
): Steps<Solution> {
  const reasons = new Map<string, ChoiceReason>();
  const variableOfLiteral = new Map<number, SolverVariable>();
  variables.forEach((variable, position) => variableOfLiteral.set(literalOf[position]!, variable));
  const queue: Choice[] = [];
  let head = 0;
  for (const variable of variables) {
    if (variable.constraints.some((constraint) => constraint.kind === 'mandatory')) queue.push({ candidates: [lit(variable.id)] });
  }
  const chosen = new Set<number>();
  const guesses: number[] = [];
  let model = firstModel;

  // Direct clashes (prohibited, conflict, at-most-one groups) rule a candidate out without a SAT
  // call: with everything chosen so far, such a candidate is certainly inconsistent.
  const prohibited = new Set<number>();
  const conflicts = new Map<number, number[]>();
  const groupsOf = new Map<number, number[]>();
  let groupCount = 0;
  const link = (map: Map<number, number[]>, key: number, value: number) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const variable of variables) {
    const subject = lit(variable.id);
    for (const constraint of variable.constraints) {
      if (constraint.kind === 'prohibited') prohibited.add(subject);
      else if (constraint.kind === 'conflict') {
        link(conflicts, subject, lit(constraint.id));
        link(conflicts, lit(constraint.id), subject);
      } else if (constraint.kind === 'atMost' && constraint.n === 1) {
        const group = groupCount++;
        for (const id of constraint.ids) link(groupsOf, lit(id), group);
      }
    }
  }
  const taken = new Map<number, number>();
  const clashes = (candidate: number, takenGroups: ReadonlyMap<number, number>, tentative?: ReadonlySet<number>) =>
    prohibited.has(candidate) ||
    (groupsOf.get(candidate) ?? []).some((group) => {
      const holder = takenGroups.get(group);
      return holder !== undefined && holder !== candidate;
    }) ||
    (conflicts.get(candidate) ?? []).some((other) => chosen.has(other) || tentative?.has(other) === true);
  const take = (candidate: number, takenGroups: Map<number, number>) => {
    for (const group of groupsOf.get(candidate) ?? []) takenGroups.set(group, candidate);
  };

  const accept = (choice: Choice, picked: number) => {
    take(picked, taken);
    chosen.add(picked);
    guesses.push(picked);
    const pickedVariable = variableOfLiteral.get(picked)!;
    reasons.set(
      pickedVariable.id,
      choice.reason ? { kind: 'dependency', ...choice.reason, option: choice.candidates.indexOf(picked) + 1 } : { kind: 'anchor' },
    );
    for (const constraint of pickedVariable.constraints) {
      if (constraint.kind === 'dependency' && constraint.ids.length > 0) {
        queue.push({ candidates: lit.all(constraint.ids), reason: { by: pickedVariable.id, constraint } });
      }
    }
  };
  const isMet = (choice: Choice, tentative?: ReadonlySet<number>) =>
    choice.candidates.some((candidate) => chosen.has(candidate) || tentative?.has(candidate) === true);

  // Choices are taken in FIFO order; each gets its first candidate consistent with all earlier
  // picks. To save SAT calls, the first candidates of every queued choice are tried together: if
  // that holds, each of them is what the one-by-one search would pick; if not, a binary search finds
  // the longest consistent prefix and the first failing choice is settled one candidate at a time.
  while (head < queue.length) {
    if (pacer.isDue()) yield;
    const batch: Array<{ choice: Choice; pick?: number }> = [];
    const tentative = new Set<number>();
    const tentativeGroups = new Map(taken);
    let isModelEnough = true;
    for (let index = head; index < queue.length; index++) {
      const choice = queue[index]!;
      if (isMet(choice, tentative)) {
        batch.push({ choice });
        continue;
      }
      // The first candidate that does not clash outright; a choice with none ends the batch.
      const pick = choice.candidates.find((candidate) => !clashes(candidate, tentativeGroups, tentative));
      if (pick === undefined) break;
      tentative.add(pick);
      take(pick, tentativeGroups);
      batch.push({ choice, pick });
      if (!model.value(pick)) isModelEnough = false;
    }
    if (batch.length === 0) {
      // Unreachable: with nothing tentative, some candidate of the head choice is consistent.
      throw new OlmError(ResolverErrorCodes.invalidInput, 'internal error: the preference search found no consistent candidate');
    }
    const picksOf = (count: number) => batch.slice(0, count).flatMap((item) => (item.pick === undefined ? [] : [item.pick]));
    // A model of the first `count` items proves every longer prefix whose further picks it also makes true.
    const provenBy = (count: number) => {
      let proven = count;
      while (proven < batch.length && (batch[proven]!.pick === undefined || model.value(batch[proven]!.pick!))) proven++;
      return proven;
    };
    let consistent = batch.length;
    if (!isModelEnough) {
      let low = provenBy(0);
      const outcome = solver.solve([...baseline, ...guesses, ...picksOf(batch.length)]);
      if (outcome.satisfiable) {
        model = outcome;
      } else {
        let high = batch.length;
        while (high - low > 1) {
          if (pacer.isDue()) yield;
          const middle = (low + high) >> 1;
          const attempt = solver.solve([...baseline, ...guesses, ...picksOf(middle)]);
          if (attempt.satisfiable) {
            model = attempt;
            low = Math.min(provenBy(middle), high - 1);
          } else {
            high = middle;
          }
        }
        consistent = low;
      }
    }
    for (const item of batch.slice(0, consistent)) {
      if (item.pick !== undefined) accept(item.choice, item.pick);
    }
    head += consistent;
    if (consistent === batch.length) continue;

    // The choice at `head` cannot take the candidate tried in the batch: try the later ones in order.
    // (A binary search over "one of candidates i..k" needs fewer calls, but its unsatisfiable calls
    // cost more.)
    const choice = queue[head++]!;
    const failed = batch[consistent]!.pick;
    let picked: number | undefined;
    for (const candidate of choice.candidates.slice(choice.candidates.indexOf(failed!) + 1)) {
      if (clashes(candidate, taken)) continue;
      if (model.value(candidate)) {
        picked = candidate;
        break;
      }
      if (pacer.isDue()) yield;
      const outcome = solver.solve([...baseline, ...guesses, candidate]);
      if (outcome.satisfiable) {
        model = outcome;
        picked = candidate;
        break;
      }
    }
    // Unreachable: the last model satisfies every active dependency of what is chosen.
    if (picked === undefined) throw new OlmError(ResolverErrorCodes.invalidInput, 'internal error: the preference search found no consistent candidate');
    accept(choice, picked);
  }
  const chosenIds = variables.filter((_, position) => chosen.has(literalOf[position]!)).map((variable) => variable.id);
  return { chosen: chosenIds, reasons };
}

/** A minimal unsatisfiable subset of the activations (QuickXplain over assumption literals). */
function* minimalCore(solver: CountingSolver, activations: readonly Activation[], outcome: SatOutcome, pacer: Pacer): Steps<Activation[]> {
  let candidates = [...activations];
  if (!outcome.satisfiable && outcome.failedAssumptions) {
    const failed = new Set(outcome.failedAssumptions);
    const narrowed = candidates.filter((activation) => failed.has(activation.literal));
    if (narrowed.length > 0 && !(yield* isSatisfiable(solver, narrowed, pacer))) candidates = narrowed;
  }
  const core = yield* quickXplain(solver, [], false, candidates, pacer);
  const order = new Map(activations.map((activation, position) => [activation, position]));
  return core.sort((a, b) => order.get(a)! - order.get(b)!);
}

function* isSatisfiable(solver: CountingSolver, activations: readonly Activation[], pacer: Pacer): Steps<boolean> {
  if (pacer.isDue()) yield;
  return solver.solve(activations.map((activation) => activation.literal)).satisfiable;
}

function* quickXplain(solver: CountingSolver, background: Activation[], hasDelta: boolean, constraints: Activation[], pacer: Pacer): Steps<Activation[]> {
  if (hasDelta && !(yield* isSatisfiable(solver, background, pacer))) return [];
  if (constraints.length <= 1) return constraints;
  const middle = Math.floor(constraints.length / 2);
  const left = constraints.slice(0, middle);
  const right = constraints.slice(middle);
  const rightCore = yield* quickXplain(solver, [...background, ...left], left.length > 0, right, pacer);
  const leftCore = yield* quickXplain(solver, [...background, ...rightCore], rightCore.length > 0, left, pacer);
  return [...leftCore, ...rightCore];
}

function notSatisfiable(core: readonly Activation[]): OlmError {
  const constraints: AppliedConstraint[] = core.map((activation) => ({
    variable: activation.variable,
    kind: activation.constraint.kind,
    message: activation.constraint.message ?? describeConstraint(activation.variable, activation.constraint),
    ...(activation.constraint.failureMessages?.length ? { failureMessages: activation.constraint.failureMessages } : {}),
  }));
  constraints.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  const message = constraints.length === 0 ? 'constraints not satisfiable' : `constraints not satisfiable: ${constraints.map((each) => each.message).join(', ')}`;
  return new OlmError(ResolverErrorCodes.unsatisfiable, message, { details: { constraints } });
}
