/// <reference path="./logic-solver.d.ts" />
import { describeError, OlmError, SatErrorCodes, type SatBackend, type SatLiteral, type SatOutcome, type SatSolver } from '@olm/core';
import MiniSat from 'logic-solver/minisat_wrapper.js';

export interface LogicSolverBackendOptions {
  /**
   * Problems share one MiniSat instance until it holds this many variables; then the next problem
   * starts a fresh one. Default 500,000: a fresh instance runs slower for a while (V8 compiles the
   * asm.js module anew and tiers it up), and retired variables cost MiniSat only a few bytes each.
   */
  readonly recycleAfterVariables?: number;
}

/**
 * A `SatBackend` on logic-solver's MiniSat (compiled to asm.js), driven directly through its
 * `minisat_wrapper.js` with numeric literals: logic-solver's formula layer keeps every clause and
 * builds a full assignment object per solve, which costs more than solving OLM-sized problems.
 *
 * Creating a MiniSat instance costs several milliseconds (each instantiates its own asm.js module
 * with a fixed 64 MiB heap). So problems (`createSolver()`) are sessions on a shared instance: each
 * clause of a session carries the negation of the session's own literal, its solves assume that
 * literal, and `dispose()` retires it with a unit clause, which MiniSat simplifies away. The shared
 * instance is replaced after `recycleAfterVariables`.
 *
 * When the heap runs out MiniSat aborts by throwing a string and leaves the instance in an undefined
 * state: every call is guarded, such an abort becomes `OLM_SAT_RESOURCE_EXHAUSTED`, and that instance
 * (with every session on it) is never used again (`OLM_SAT_SOLVER_UNUSABLE`).
 */
export function createLogicSolverBackend(options: LogicSolverBackendOptions = {}): SatBackend {
  const limit = options.recycleAfterVariables ?? 500_000;
  let shared: SharedMiniSat | undefined;
  return {
    name: 'logic-solver',
    createSolver: () => {
      if (!shared || shared.isCrashed || shared.variables >= limit) shared = new SharedMiniSat();
      return new Session(shared);
    },
  };
}

/** One MiniSat instance and its variable numbering, shared by sessions. */
class SharedMiniSat {
  private readonly native: MiniSat['_C'];
  private buffer = 0;
  private bufferTerms = 0;
  variables = 0;
  isCrashed = false;

  constructor() {
    this.native = this.guard(() => new MiniSat()._C);
  }

  fresh(): number {
    return ++this.variables;
  }

  addClause(terms: readonly number[]): void {
    this.guard(() => {
      if (terms.length + 1 > this.bufferTerms) {
        if (this.buffer) this.native._free(this.buffer);
        this.bufferTerms = Math.max(64, 2 * (terms.length + 1));
        this.buffer = this.native._malloc(this.bufferTerms * 4);
      }
      const heap = this.native.HEAP32;
      const base = this.buffer >> 2;
      for (let i = 0; i < terms.length; i++) heap[base + i] = terms[i]!;
      heap[base + terms.length] = 0;
      // False only if the clause set became unsatisfiable for good, which session-guarded clauses cannot do.
      this.native._addClause(this.buffer);
    });
  }

  /**
   * Solves assuming `variable`. Returns where the model lies (one byte per variable, 0 = true; valid
   * until the next call), or undefined when unsatisfiable.
   */
  solve(variable: number): { readonly heap: Int8Array; readonly offset: number } | undefined {
    return this.guard(() => {
      this.native._ensureVar(this.variables);
      if (!this.native._solveAssuming(variable)) return undefined;
      // Variable v's value is at offset + v (MiniSat numbers from 0, these from 1).
      return { heap: this.native.HEAP8, offset: this.native._getSolution() - 1 };
    });
  }

  /**
   * Runs a MiniSat call, turning its abort (a thrown string) into a coded error. The emscripten build
   * writes its notices (`MINISAT-out: Cannot enlarge memory arrays…`) with the global console.log, which
   * would put stray lines in a program's stdout (JSON logs, bench lines): during the call they are
   * kept and become part of the error instead.
   */
  guard<T>(call: () => T): T {
    if (this.isCrashed) throw unusable('this logic-solver solver ran out of memory earlier and cannot be used again; create a new solver');
    const log = console.log;
    const notices: string[] = [];
    console.log = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('MINISAT-')) notices.push(args.slice(1).join(' '));
      else log(...args);
    };
    try {
      return call();
    } catch (error) {
      if (error instanceof OlmError) throw error;
      const isAbort = typeof error === 'string' || /enlarge memory|abort/i.test(describeError(error));
      if (!isAbort) throw error;
      this.isCrashed = true;
      throw new OlmError(
        SatErrorCodes.resourceExhausted,
        `logic-solver ran out of its fixed 64 MiB heap (${firstLine(notices[0] ?? describeError(error))}); ` +
          'the problem is too large for this backend: resolve fewer subscriptions at once or boot another SAT backend',
        { cause: error },
      );
    } finally {
      console.log = log;
    }
  }
}

class Session implements SatSolver {
  /** Session variable number → MiniSat variable number (index 0 unused). */
  private readonly numbers: number[] = [0];
  /** Counter variables of at-most-one encodings and assumption links; fixed to false on dispose. */
  private readonly auxiliaries: number[] = [];
  /** The assumption chain of the last solve: its assumptions and the link variable of each prefix. */
  private readonly chainTerms: number[] = [];
  private readonly chainLinks: number[] = [];
  private readonly active: number;
  private isDisposed = false;

  constructor(private readonly shared: SharedMiniSat) {
    this.active = shared.fresh();
  }

  newVariable(): number {
    this.check();
    this.numbers.push(this.shared.fresh());
    return this.numbers.length - 1;
  }

  private auxiliary(): number {
    const variable = this.shared.fresh();
    this.auxiliaries.push(variable);
    return variable;
  }

  addClause(literals: readonly SatLiteral[]): void {
    this.check();
    this.shared.addClause([...literals.map((literal) => this.term(literal)), -this.active]);
  }

  addAtMostOne(literals: readonly SatLiteral[], condition?: SatLiteral): void {
    this.check();
    const terms = literals.map((literal) => this.term(literal));
    const guard = condition === undefined ? [-this.active] : [-this.term(condition), -this.active];
    if (terms.length <= 4) {
      for (let i = 0; i < terms.length; i++) {
        for (let j = i + 1; j < terms.length; j++) this.shared.addClause([-terms[i]!, -terms[j]!, ...guard]);
      }
      return;
    }
    // Sequential counter: `seen` says "one of the terms so far is true"; every clause is guarded.
    let seen = this.auxiliary();
    this.shared.addClause([-terms[0]!, seen, ...guard]);
    for (let i = 1; i < terms.length; i++) {
      this.shared.addClause([-terms[i]!, -seen, ...guard]);
      if (i === terms.length - 1) break;
      const next = this.auxiliary();
      this.shared.addClause([-seen, next, ...guard]);
      this.shared.addClause([-terms[i]!, next, ...guard]);
      seen = next;
    }
  }

  solve(assumptions: readonly SatLiteral[] = []): SatOutcome {
    this.check();
    const terms = assumptions.map((literal) => this.term(literal));
    const model = this.shared.solve(this.chainFor(terms));
    if (!model) return { satisfiable: false };
    // Copy this session's values now: the shared model changes with the next solve.
    const values = new Uint8Array(this.numbers.length);
    const { heap, offset } = model;
    for (let variable = 1; variable < this.numbers.length; variable++) values[variable] = heap[offset + this.numbers[variable]!] === 0 ? 1 : 0;
    return {
      satisfiable: true,
      value: (variable: number) => {
        if (!Number.isInteger(variable) || variable < 1 || variable >= values.length) throw invalidLiteral(variable);
        return values[variable] === 1;
      },
    };
  }

  /**
   * MiniSat here takes one assumption per solve, so a chain of variables stands for the list:
   * link i implies link i-1 and the i-th assumption. Callers usually extend the previous call's
   * list (a search adds its choices one by one), so the common prefix of links is reused.
   */
  private chainFor(terms: readonly number[]): number {
    let shared = 0;
    while (shared < terms.length && shared < this.chainTerms.length && this.chainTerms[shared] === terms[shared]) shared++;
    for (const dropped of this.chainLinks.splice(shared)) this.shared.addClause([-dropped]);
    this.chainTerms.length = shared;
    for (let index = shared; index < terms.length; index++) {
      const link = this.auxiliary();
      this.shared.addClause([-link, index === 0 ? this.active : this.chainLinks[index - 1]!]);
      this.shared.addClause([-link, terms[index]!]);
      this.chainLinks.push(link);
      this.chainTerms.push(terms[index]!);
    }
    return terms.length === 0 ? this.active : this.chainLinks[terms.length - 1]!;
  }

  dispose(): void {
    if (this.isDisposed) return;
    this.isDisposed = true;
    if (this.shared.isCrashed) return;
    // Retire the session: its clauses are switched off, and fixing its variables at level 0 keeps
    // MiniSat from deciding them again in every later session's search.
    this.shared.addClause([-this.active]);
    for (let variable = 1; variable < this.numbers.length; variable++) this.shared.addClause([-this.numbers[variable]!]);
    for (const variable of this.auxiliaries) this.shared.addClause([-variable]);
  }

  private check(): void {
    if (this.isDisposed) throw unusable('this logic-solver solver was disposed; create a new solver');
    if (this.shared.isCrashed) throw unusable('this logic-solver solver ran out of memory earlier and cannot be used again; create a new solver');
  }

  private term(literal: SatLiteral): number {
    const variable = Math.abs(literal);
    const number = Number.isInteger(literal) && variable >= 1 ? this.numbers[variable] : undefined;
    if (number === undefined) throw invalidLiteral(literal);
    return literal < 0 ? -number : number;
  }
}

function unusable(message: string): OlmError {
  return new OlmError(SatErrorCodes.solverUnusable, message);
}

function invalidLiteral(literal: number): OlmError {
  return new OlmError(SatErrorCodes.invalidLiteral, `literal ${literal} names no variable created by newVariable()`);
}

function firstLine(text: string): string {
  const line = text.split('\n').find((part) => part.trim() !== '') ?? text;
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
