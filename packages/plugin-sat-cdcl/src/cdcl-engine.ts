/**
 * A conflict-driven clause-learning SAT engine: two watched literals, first-UIP learning with
 * recursive clause minimisation, VSIDS activities in a binary heap, phase saving, Luby restarts,
 * LBD-based learnt clause reduction and incremental solving under assumptions.
 *
 * It speaks DIMACS-style literals (variable v ≥ 1 is `v`, its negation `-v`) and trusts its caller:
 * the `SatSolver` on top of it (cdcl-solver.ts) validates input. Inside, a literal is `2·index` for
 * the positive and `2·index + 1` for the negative literal of variable `index = v - 1`, so `l ^ 1`
 * negates it and `l >> 1` is its variable.
 */

/** Per-variable value codes. */
const FALSE = 0;
const TRUE = 1;
const UNASSIGNED = 2;

interface Clause {
  /** lits[0] and lits[1] are watched; for a reason clause lits[0] is the implied literal. */
  readonly lits: number[];
  readonly learnt: boolean;
  activity: number;
  /** Literal block distance: how many decision levels the clause spanned when learnt. */
  lbd: number;
  removed: boolean;
}

export type EngineOutcome =
  | { readonly satisfiable: true; readonly model: Uint8Array }
  | { readonly satisfiable: false; readonly failedAssumptions: readonly number[] }
  /** The search met `maxConflicts` conflicts without an answer. */
  | { readonly satisfiable: undefined };

export interface EngineStatistics {
  readonly variables: number;
  readonly clauses: number;
  readonly learnts: number;
  readonly conflicts: number;
  readonly decisions: number;
  readonly propagations: number;
  readonly restarts: number;
}

const restartUnit = 100;
const variableDecay = 0.95;
const clauseDecay = 0.999;

export class CdclEngine {
  private variableCount = 0;
  private capacity = 0;
  /** Per variable (typed, grown by doubling): value, decision level, saved phase, activity, heap slot. */
  private assigns = new Uint8Array(0);
  private levels = new Int32Array(0);
  private phases = new Uint8Array(0);
  private seen = new Uint8Array(0);
  private activity = new Float64Array(0);
  private heapSlot = new Int32Array(0);
  private heap = new Int32Array(0);
  private heapSize = 0;
  private levelStamps = new Int32Array(0);
  /** Marks of `addClause` (Float64: stamps grow past 2^31 over millions of clauses). */
  private addMarks = new Float64Array(0);
  private addStamp = 0;
  private stamp = 0;
  private reasons: Array<Clause | null> = [];
  /**
   * Watches as linked lists in typed arrays (a JS array per literal would cost ~150 bytes even when
   * nearly empty). `watchHeads[l]` starts the list of clauses watching ¬l, to visit when l becomes
   * true; each clause owns two nodes. A node holds its clause, the next node and a blocker: another
   * literal of the clause, and when that is true the clause need not be looked at.
   */
  private watchHeads = new Int32Array(0);
  private nodeClauses: Clause[] = [];
  private nodeNext = new Int32Array(0);
  private nodeBlockers = new Int32Array(0);
  private nodeCount = 0;
  private readonly freeNodes: number[] = [];

  private trail = new Int32Array(0);
  private trailSize = 0;
  private trailLimits: number[] = [];
  private propagationHead = 0;

  private readonly clauses: Clause[] = [];
  private learnts: Clause[] = [];
  /** False once the clauses alone are unsatisfiable: every later solve answers so at once. */
  private isConsistent = true;
  private variableIncrement = 1;
  private clauseIncrement = 1;
  private learntLimit = 0;

  private conflicts = 0;
  private decisions = 0;
  private propagations = 0;
  private restarts = 0;

  get statistics(): EngineStatistics {
    return {
      variables: this.variableCount,
      clauses: this.clauses.length,
      learnts: this.learnts.length,
      conflicts: this.conflicts,
      decisions: this.decisions,
      propagations: this.propagations,
      restarts: this.restarts,
    };
  }

  newVariable(): number {
    if (this.variableCount === this.capacity) this.grow(Math.max(16, this.capacity * 2));
    const index = this.variableCount++;
    this.assigns[index] = UNASSIGNED;
    this.levels[index] = -1;
    this.phases[index] = FALSE;
    this.activity[index] = 0;
    this.heapSlot[index] = -1;
    this.reasons.push(null);
    this.watchHeads[2 * index] = -1;
    this.watchHeads[2 * index + 1] = -1;
    this.heapInsert(index);
    return index + 1;
  }

  /** Adds a clause for good. Must only be called between solves (the engine is then at level 0). */
  addClause(literals: readonly number[]): void {
    if (!this.isConsistent) return;
    // Duplicates and x ∨ ¬x are found with per-variable marks (no sort): mark = stamp·2 + sign + 1.
    const marks = this.addMarks;
    const stamp = ++this.addStamp;
    const kept: number[] = [];
    for (const external of literals) {
      const literal = toInternal(external);
      const variable = literal >> 1;
      const mark = marks[variable]!;
      if (mark >= 2 * stamp + 1) {
        if (mark === 2 * stamp + 1 + (literal & 1)) continue; // listed twice
        return; // x ∨ ¬x: always true
      }
      marks[variable] = 2 * stamp + 1 + (literal & 1);
      const value = this.valueOf(literal);
      if (value === TRUE) {
        return; // satisfied at level 0 for good
      }
      if (value === UNASSIGNED) kept.push(literal);
    }
    if (kept.length === 0) {
      this.isConsistent = false;
    } else if (kept.length === 1) {
      this.assign(kept[0]!, null);
      if (this.propagate() !== null) this.isConsistent = false;
    } else {
      const clause: Clause = { lits: kept, learnt: false, activity: 0, lbd: 0, removed: false };
      this.clauses.push(clause);
      this.attach(clause);
    }
  }

  /**
   * Solves under assumptions (DIMACS literals). When unsatisfiable, `failedAssumptions` is a subset
   * of the assumptions that is unsatisfiable together with the clauses (empty when the clauses
   * alone are). Returns at decision level 0, so clauses may be added afterwards.
   */
  solve(assumptions: readonly number[] = [], maxConflicts = Infinity): EngineOutcome {
    if (!this.isConsistent) return { satisfiable: false, failedAssumptions: [] };
    const conflictsAtStart = this.conflicts;
    const assumed = assumptions.map(toInternal);
    if (this.learntLimit === 0) this.learntLimit = Math.max(2000, Math.floor(this.clauses.length / 3));
    let restartNumber = 0;
    let conflictsUntilRestart = luby(restartNumber) * restartUnit;
    for (;;) {
      const conflict = this.propagate();
      if (conflict !== null) {
        this.conflicts++;
        conflictsUntilRestart--;
        if (this.trailLimits.length === 0) {
          this.isConsistent = false;
          return { satisfiable: false, failedAssumptions: [] };
        }
        if (this.conflicts - conflictsAtStart > maxConflicts) {
          this.backtrackTo(0);
          return { satisfiable: undefined };
        }
        this.learnFrom(conflict);
        this.variableIncrement /= variableDecay;
        this.clauseIncrement /= clauseDecay;
        continue;
      }
      if (conflictsUntilRestart <= 0) {
        this.restarts++;
        restartNumber++;
        conflictsUntilRestart = luby(restartNumber) * restartUnit;
        this.backtrackTo(0);
        continue;
      }
      if (this.learnts.length - this.trailSize >= this.learntLimit) this.reduceLearnts();

      let next = -1;
      while (this.trailLimits.length < assumed.length) {
        const literal = assumed[this.trailLimits.length]!;
        const value = this.valueOf(literal);
        if (value === TRUE) {
          this.trailLimits.push(this.trailSize); // already implied: an empty level keeps levels aligned with assumptions
        } else if (value === FALSE) {
          const failed = this.analyzeFinal(literal);
          this.backtrackTo(0);
          return { satisfiable: false, failedAssumptions: failed.map(toExternal) };
        } else {
          next = literal;
          break;
        }
      }
      if (next === -1) {
        next = this.pickBranchLiteral();
        if (next === -1) {
          const model = this.assigns.slice(0, this.variableCount);
          this.backtrackTo(0);
          return { satisfiable: true, model };
        }
        this.decisions++;
      }
      this.trailLimits.push(this.trailSize);
      this.assign(next, null);
    }
  }

  // ---- assignment and propagation -------------------------------------------------------------

  private valueOf(literal: number): number {
    const value = this.assigns[literal >> 1]!;
    return value === UNASSIGNED ? UNASSIGNED : value ^ (literal & 1);
  }

  private assign(literal: number, reason: Clause | null): void {
    const variable = literal >> 1;
    this.assigns[variable] = (literal & 1) ^ 1;
    this.levels[variable] = this.trailLimits.length;
    this.reasons[variable] = reason;
    this.trail[this.trailSize++] = literal;
  }

  private attach(clause: Clause): void {
    this.addWatch(clause.lits[0]! ^ 1, clause, clause.lits[1]!);
    this.addWatch(clause.lits[1]! ^ 1, clause, clause.lits[0]!);
  }

  private addWatch(literal: number, clause: Clause, blocker: number): void {
    let node = this.freeNodes.pop();
    if (node === undefined) {
      node = this.nodeCount++;
      if (node === this.nodeNext.length) {
        const size = Math.max(64, 2 * node);
        this.nodeNext = resized(this.nodeNext, size, Int32Array);
        this.nodeBlockers = resized(this.nodeBlockers, size, Int32Array);
      }
      this.nodeClauses.push(clause);
    } else {
      this.nodeClauses[node] = clause;
    }
    this.nodeBlockers[node] = blocker;
    this.nodeNext[node] = this.watchHeads[literal]!;
    this.watchHeads[literal] = node;
  }

  /** Unit propagation over two watched literals; returns a conflicting clause or null. */
  private propagate(): Clause | null {
    const assigns = this.assigns;
    const heads = this.watchHeads;
    const next = this.nodeNext;
    const blockers = this.nodeBlockers;
    const nodeClauses = this.nodeClauses;
    while (this.propagationHead < this.trailSize) {
      const literal = this.trail[this.propagationHead++]!;
      const falseLiteral = literal ^ 1;
      this.propagations++;
      let previous = -1;
      let node = heads[literal]!;
      while (node !== -1) {
        const following = next[node]!;
        const blocker = blockers[node]!;
        const blockerAssign = assigns[blocker >> 1]!;
        if (blockerAssign !== UNASSIGNED && (blockerAssign ^ (blocker & 1)) === TRUE) {
          previous = node;
          node = following;
          continue;
        }
        const clause = nodeClauses[node]!;
        const lits = clause.lits;
        if (lits[0] === falseLiteral) {
          lits[0] = lits[1]!;
          lits[1] = falseLiteral;
        }
        const first = lits[0]!;
        const firstAssign = assigns[first >> 1]!;
        if (firstAssign !== UNASSIGNED && (firstAssign ^ (first & 1)) === TRUE) {
          blockers[node] = first;
          previous = node;
          node = following;
          continue;
        }
        let moved = false;
        for (let k = 2; k < lits.length; k++) {
          const candidate = lits[k]!;
          const value = assigns[candidate >> 1]!;
          if (value === UNASSIGNED || (value ^ (candidate & 1)) === TRUE) {
            lits[1] = candidate;
            lits[k] = falseLiteral;
            // Move this node to the list of the new watch (never this list: candidate ≠ falseLiteral).
            if (previous === -1) heads[literal] = following;
            else next[previous] = following;
            blockers[node] = first;
            next[node] = heads[candidate ^ 1]!;
            heads[candidate ^ 1] = node;
            moved = true;
            break;
          }
        }
        if (moved) {
          node = following;
          continue;
        }
        blockers[node] = first;
        if (firstAssign !== UNASSIGNED) {
          this.propagationHead = this.trailSize;
          return clause;
        }
        this.assign(first, clause);
        previous = node;
        node = following;
      }
    }
    return null;
  }

  private backtrackTo(level: number): void {
    if (this.trailLimits.length <= level) return;
    const bottom = this.trailLimits[level]!;
    for (let position = this.trailSize - 1; position >= bottom; position--) {
      const variable = this.trail[position]! >> 1;
      this.phases[variable] = this.assigns[variable]!;
      this.assigns[variable] = UNASSIGNED;
      this.reasons[variable] = null;
      if (this.heapSlot[variable]! < 0) this.heapInsert(variable);
    }
    this.trailSize = bottom;
    this.propagationHead = bottom;
    this.trailLimits.length = level;
  }

  private pickBranchLiteral(): number {
    while (this.heapSize > 0) {
      const variable = this.heapRemoveMax();
      if (this.assigns[variable] === UNASSIGNED) return 2 * variable + (this.phases[variable] === TRUE ? 0 : 1);
    }
    return -1;
  }

  // ---- conflict analysis --------------------------------------------------------------------------

  /** First-UIP learning: derives a clause, backjumps and asserts it. */
  private learnFrom(conflict: Clause): void {
    const seen = this.seen;
    const levels = this.levels;
    const currentLevel = this.trailLimits.length;
    const learnt: number[] = [-1];
    let pending = 0;
    let literal = -1;
    let index = this.trailSize - 1;
    let clause: Clause | null = conflict;
    do {
      if (clause.learnt) this.bumpClause(clause);
      const lits = clause.lits;
      for (let k = literal === -1 ? 0 : 1; k < lits.length; k++) {
        const other = lits[k]!;
        const variable = other >> 1;
        if (seen[variable] === 0 && levels[variable]! > 0) {
          this.bumpVariable(variable);
          seen[variable] = 1;
          if (levels[variable]! >= currentLevel) pending++;
          else learnt.push(other);
        }
      }
      while (seen[this.trail[index--]! >> 1] === 0);
      literal = this.trail[index + 1]!;
      clause = this.reasons[literal >> 1]!;
      seen[literal >> 1] = 0;
      pending--;
    } while (pending > 0);
    learnt[0] = literal ^ 1;

    this.minimize(learnt);

    let backjumpLevel = 0;
    if (learnt.length > 1) {
      let highest = 1;
      for (let k = 2; k < learnt.length; k++) if (levels[learnt[k]! >> 1]! > levels[learnt[highest]! >> 1]!) highest = k;
      const swap = learnt[1]!;
      learnt[1] = learnt[highest]!;
      learnt[highest] = swap;
      backjumpLevel = levels[learnt[1]! >> 1]!;
    }
    const lbd = this.blockDistance(learnt);
    this.backtrackTo(backjumpLevel);
    if (learnt.length === 1) {
      this.assign(learnt[0]!, null);
    } else {
      const created: Clause = { lits: learnt, learnt: true, activity: 0, lbd, removed: false };
      this.learnts.push(created);
      this.attach(created);
      this.bumpClause(created);
      this.assign(learnt[0]!, created);
    }
  }

  /**
   * Recursive minimisation: drops a literal whose falsity follows, through reason clauses, from the
   * other literals of the clause. Clears `seen` for every literal it (or the analysis) marked.
   */
  private minimize(learnt: number[]): void {
    const seen = this.seen;
    let levelMask = 0;
    for (let k = 1; k < learnt.length; k++) levelMask |= abstractLevel(this.levels[learnt[k]! >> 1]!);
    const marked = learnt.slice(1);
    let write = 1;
    for (let k = 1; k < learnt.length; k++) {
      const literal = learnt[k]!;
      if (this.reasons[literal >> 1] === null || !this.isRedundant(literal, levelMask, marked)) learnt[write++] = literal;
    }
    learnt.length = write;
    for (const literal of marked) seen[literal >> 1] = 0;
  }

  private isRedundant(start: number, levelMask: number, marked: number[]): boolean {
    const seen = this.seen;
    const stack = [start];
    const top = marked.length;
    while (stack.length > 0) {
      const reason = this.reasons[stack.pop()! >> 1]!;
      const lits = reason.lits;
      for (let k = 1; k < lits.length; k++) {
        const literal = lits[k]!;
        const variable = literal >> 1;
        const level = this.levels[variable]!;
        if (seen[variable] !== 0 || level === 0) continue;
        if (this.reasons[variable] !== null && (abstractLevel(level) & levelMask) !== 0) {
          seen[variable] = 1;
          stack.push(literal);
          marked.push(literal);
        } else {
          for (let j = top; j < marked.length; j++) seen[marked[j]! >> 1] = 0;
          marked.length = top;
          return false;
        }
      }
    }
    return true;
  }

  private blockDistance(lits: readonly number[]): number {
    this.stamp++;
    let distance = 0;
    for (const literal of lits) {
      const level = this.levels[literal >> 1]!;
      if (this.levelStamps[level] !== this.stamp) {
        this.levelStamps[level] = this.stamp;
        distance++;
      }
    }
    return distance;
  }

  /**
   * `literal`, an assumption, is false: collects the assumptions its falsity follows from by walking
   * the implication graph back from it (all decisions below the assumption levels are assumptions).
   */
  private analyzeFinal(literal: number): number[] {
    const failed = [literal];
    if (this.trailLimits.length === 0 || this.levels[literal >> 1] === 0) return failed;
    const seen = this.seen;
    seen[literal >> 1] = 1;
    for (let position = this.trailSize - 1; position >= this.trailLimits[0]!; position--) {
      const variable = this.trail[position]! >> 1;
      if (seen[variable] === 0) continue;
      const reason = this.reasons[variable];
      if (!reason) {
        failed.push(this.trail[position]!);
      } else {
        const lits = reason.lits;
        for (let k = 1; k < lits.length; k++) if (this.levels[lits[k]! >> 1]! > 0) seen[lits[k]! >> 1] = 1;
      }
      seen[variable] = 0;
    }
    seen[literal >> 1] = 0;
    return failed;
  }

  // ---- learnt clause database ------------------------------------------------------------------

  /** Drops the less useful half of the learnt clauses (high LBD, then low activity); keeps glue clauses and reasons. */
  private reduceLearnts(): void {
    const sorted = this.learnts.slice().sort((a, b) => b.lbd - a.lbd || a.activity - b.activity);
    const target = sorted.length >> 1;
    let removed = 0;
    for (const clause of sorted) {
      if (removed >= target) break;
      if (clause.lbd <= 2 || clause.lits.length <= 2 || this.isLocked(clause)) continue;
      clause.removed = true;
      removed++;
    }
    this.learnts = this.learnts.filter((clause) => !clause.removed);
    for (let literal = 0; literal < 2 * this.variableCount; literal++) {
      let previous = -1;
      let node = this.watchHeads[literal]!;
      while (node !== -1) {
        const following = this.nodeNext[node]!;
        if (this.nodeClauses[node]!.removed) {
          if (previous === -1) this.watchHeads[literal] = following;
          else this.nodeNext[previous] = following;
          this.nodeClauses[node] = detached;
          this.freeNodes.push(node);
        } else {
          previous = node;
        }
        node = following;
      }
    }
    this.learntLimit = Math.floor(this.learntLimit * 1.1);
  }

  private isLocked(clause: Clause): boolean {
    const first = clause.lits[0]!;
    return this.reasons[first >> 1] === clause && this.valueOf(first) === TRUE;
  }

  // ---- activities ----------------------------------------------------------------------------------

  private bumpVariable(variable: number): void {
    const activity = this.activity;
    activity[variable] = activity[variable]! + this.variableIncrement;
    if (activity[variable]! > 1e100) {
      for (let index = 0; index < this.variableCount; index++) activity[index] = activity[index]! * 1e-100;
      this.variableIncrement *= 1e-100;
    }
    const slot = this.heapSlot[variable]!;
    if (slot >= 0) this.heapUp(slot);
  }

  private bumpClause(clause: Clause): void {
    clause.activity += this.clauseIncrement;
    if (clause.activity > 1e20) {
      for (const learnt of this.learnts) learnt.activity *= 1e-20;
      this.clauseIncrement *= 1e-20;
    }
  }

  // ---- variable order: a binary max-heap on activity ---------------------------------------------

  private heapInsert(variable: number): void {
    this.heap[this.heapSize] = variable;
    this.heapSlot[variable] = this.heapSize;
    this.heapUp(this.heapSize++);
  }

  private heapRemoveMax(): number {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap[--this.heapSize]!;
    this.heapSlot[top] = -1;
    if (this.heapSize > 0) {
      heap[0] = last;
      this.heapSlot[last] = 0;
      this.heapDown(0);
    }
    return top;
  }

  private heapUp(slot: number): void {
    const heap = this.heap;
    const variable = heap[slot]!;
    const activity = this.activity[variable]!;
    while (slot > 0) {
      const parent = (slot - 1) >> 1;
      const above = heap[parent]!;
      if (this.activity[above]! >= activity) break;
      heap[slot] = above;
      this.heapSlot[above] = slot;
      slot = parent;
    }
    heap[slot] = variable;
    this.heapSlot[variable] = slot;
  }

  private heapDown(slot: number): void {
    const heap = this.heap;
    const variable = heap[slot]!;
    const activity = this.activity[variable]!;
    for (;;) {
      let child = 2 * slot + 1;
      if (child >= this.heapSize) break;
      if (child + 1 < this.heapSize && this.activity[heap[child + 1]!]! > this.activity[heap[child]!]!) child++;
      const below = heap[child]!;
      if (this.activity[below]! <= activity) break;
      heap[slot] = below;
      this.heapSlot[below] = slot;
      slot = child;
    }
    heap[slot] = variable;
    this.heapSlot[variable] = slot;
  }

  private grow(capacity: number): void {
    this.assigns = resized(this.assigns, capacity, Uint8Array);
    this.levels = resized(this.levels, capacity, Int32Array);
    this.phases = resized(this.phases, capacity, Uint8Array);
    this.seen = resized(this.seen, capacity, Uint8Array);
    this.activity = resized(this.activity, capacity, Float64Array);
    this.heapSlot = resized(this.heapSlot, capacity, Int32Array);
    this.heap = resized(this.heap, capacity, Int32Array);
    this.levelStamps = resized(this.levelStamps, capacity + 1, Int32Array);
    this.addMarks = resized(this.addMarks, capacity, Float64Array);
    this.trail = resized(this.trail, capacity, Int32Array);
    this.watchHeads = resized(this.watchHeads, 2 * capacity, Int32Array);
    this.capacity = capacity;
  }
}

/** Stands in for a deleted clause in a free watch node, so the node does not keep it alive. */
const detached: Clause = { lits: [], learnt: true, activity: 0, lbd: 0, removed: true };

type TypedArray = Uint8Array | Int32Array | Float64Array;

function resized<T extends TypedArray>(array: T, length: number, Kind: new (length: number) => T): T {
  const next = new Kind(length);
  next.set(array as never);
  return next;
}

function toInternal(literal: number): number {
  return literal > 0 ? 2 * (literal - 1) : 2 * (-literal - 1) + 1;
}

function toExternal(literal: number): number {
  const variable = (literal >> 1) + 1;
  return literal & 1 ? -variable : variable;
}

function abstractLevel(level: number): number {
  return 1 << (level & 31);
}

/** The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, … at position `index` (from 0). */
export function luby(index: number): number {
  let size = 1;
  let sequence = 0;
  while (size < index + 1) {
    sequence++;
    size = 2 * size + 1;
  }
  let position = index;
  while (size - 1 !== position) {
    size = (size - 1) >> 1;
    sequence--;
    position %= size;
  }
  return 2 ** sequence;
}
