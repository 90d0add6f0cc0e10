// logic-solver 2.0.1 ships no types. This package drives the MiniSat build inside it directly
// (`minisat_wrapper.js`, CommonJS, `module.exports = MiniSat`); these are the parts it uses.
declare module 'logic-solver/minisat_wrapper.js' {
  /** The emscripten module of one MiniSat instance (fixed 64 MiB heap). */
  interface MiniSatModule {
    readonly HEAP8: Int8Array;
    readonly HEAP32: Int32Array;
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    _ensureVar(variable: number): void;
    /** Adds a 0-terminated clause at `pointer`; false when the problem became unsatisfiable. */
    _addClause(pointer: number): number;
    _solve(): number;
    _solveAssuming(variable: number): number;
    _getNumVars(): number;
    /** Pointer to one byte per variable: 0 means true. */
    _getSolution(): number;
  }
  class MiniSat {
    constructor();
    readonly _C: MiniSatModule;
  }
  export default MiniSat;
}
