import { OlmError, SatErrorCodes, type SatBackend, type SatLiteral, type SatOutcome, type SatSolveOptions, type SatSolver } from '@olm/core';
import { encodeAtMostOne } from './at-most-one.js';
import { CdclEngine, type EngineStatistics } from './cdcl-engine.js';

export const cdclBackendName = 'cdcl';

/**
 * A `SatBackend` on a CDCL solver written in TypeScript. Each `createSolver()` is an independent
 * engine whose memory grows with the problem (no fixed heap) and is freed on `dispose()`.
 */
export function createCdclBackend(): CdclBackend {
  return {
    name: cdclBackendName,
    createSolver: () => new CdclSession(),
  };
}

export interface CdclBackend extends SatBackend {
  createSolver(): CdclSolver;
}

/** A `SatSolver` that also reports the engine's counters (for benchmarks and diagnostics). */
export interface CdclSolver extends SatSolver {
  readonly statistics: EngineStatistics;
}

class CdclSession implements CdclSolver {
  private engine: CdclEngine | undefined = new CdclEngine();
  /** Caller's variable number → engine variable (index 0 unused); at-most-one auxiliaries are engine-only. */
  private readonly engineVariables: number[] = [0];
  private state: 'usable' | 'disposed' | 'broken' = 'usable';

  get statistics(): EngineStatistics {
    return this.use().statistics;
  }

  newVariable(): number {
    const engine = this.use();
    return this.guard(() => {
      this.engineVariables.push(engine.newVariable());
      return this.engineVariables.length - 1;
    });
  }

  addClause(literals: readonly SatLiteral[]): void {
    const engine = this.use();
    const mapped = literals.map((literal) => this.toEngine(literal));
    this.guard(() => engine.addClause(mapped));
  }

  addAtMostOne(literals: readonly SatLiteral[], condition?: SatLiteral): void {
    const engine = this.use();
    const mapped = literals.map((literal) => this.toEngine(literal));
    const guard = condition === undefined ? [] : [-this.toEngine(condition)];
    this.guard(() => encodeAtMostOne(mapped, guard, engine));
  }

  solve(assumptions: readonly SatLiteral[] = [], options: SatSolveOptions = {}): SatOutcome {
    const engine = this.use();
    const mapped = assumptions.map((literal) => this.toEngine(literal));
    const maxConflicts = options.maxConflicts ?? Infinity;
    const outcome = this.guard(() => engine.solve(mapped, maxConflicts));
    if (outcome.satisfiable === undefined) {
      throw new OlmError(SatErrorCodes.limitExceeded, `the CDCL search gave up after ${maxConflicts} conflicts without an answer (SatSolveOptions.maxConflicts)`, {
        details: { maxConflicts },
      });
    }
    if (!outcome.satisfiable) {
      // Report the caller's own literals, in the order given, once each.
      const failed = new Set(outcome.failedAssumptions);
      const reported = new Set<SatLiteral>();
      assumptions.forEach((literal, position) => {
        if (failed.has(mapped[position]!)) reported.add(literal);
      });
      return { satisfiable: false, failedAssumptions: [...reported] };
    }
    // Copy the caller's variables now: the engine's state changes with the next call.
    const values = new Uint8Array(this.engineVariables.length);
    for (let variable = 1; variable < this.engineVariables.length; variable++) values[variable] = outcome.model[this.engineVariables[variable]! - 1]!;
    return {
      satisfiable: true,
      value: (variable: number) => {
        if (!Number.isInteger(variable) || variable < 1 || variable >= values.length) throw invalidLiteral(variable);
        return values[variable] === 1;
      },
    };
  }

  dispose(): void {
    if (this.state === 'usable') this.state = 'disposed';
    this.engine = undefined;
  }

  private use(): CdclEngine {
    if (this.state === 'disposed' || !this.engine) throw new OlmError(SatErrorCodes.solverUnusable, 'this CDCL solver was disposed; create a new solver');
    if (this.state === 'broken') throw new OlmError(SatErrorCodes.solverUnusable, 'this CDCL solver ran out of memory earlier and cannot be used again; create a new solver');
    return this.engine;
  }

  private toEngine(literal: SatLiteral): number {
    const variable = Math.abs(literal);
    const engineVariable = Number.isInteger(literal) && variable >= 1 ? this.engineVariables[variable] : undefined;
    if (engineVariable === undefined) throw invalidLiteral(literal);
    return literal < 0 ? -engineVariable : engineVariable;
  }

  /** Turns running out of memory (V8 throws RangeError for too-large arrays) into a coded error. */
  private guard<T>(call: () => T): T {
    try {
      return call();
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      this.state = 'broken';
      this.engine = undefined;
      throw new OlmError(SatErrorCodes.resourceExhausted, `the CDCL solver could not allocate memory (${error.message}); the problem is too large for this process`, { cause: error });
    }
  }
}

function invalidLiteral(literal: number): OlmError {
  return new OlmError(SatErrorCodes.invalidLiteral, `literal ${literal} names no variable created by newVariable()`);
}
