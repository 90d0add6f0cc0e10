/** Where an encoding puts its clauses and finds fresh auxiliary variables (DIMACS-style literals). */
export interface ClauseSink {
  addClause(literals: readonly number[]): void;
  newVariable(): number;
}

/** Up to this many literals the pairwise encoding (n·(n-1)/2 clauses, no auxiliaries) is used. */
export const pairwiseLimit = 6;

/**
 * Encodes "at most one of `literals` is true" into `sink`, every clause extended by `guard` (the
 * negated condition, when the constraint is conditional). Small lists use the pairwise encoding;
 * larger ones Sinz's sequential counter: n-1 auxiliaries `seen_i` ("one of the first i is true")
 * and 3n-4 clauses, linear in n and as strong for propagation as pairwise.
 */
export function encodeAtMostOne(literals: readonly number[], guard: readonly number[], sink: ClauseSink): void {
  const n = literals.length;
  if (n <= 1) return;
  if (n <= pairwiseLimit) {
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) sink.addClause([-literals[i]!, -literals[j]!, ...guard]);
    }
    return;
  }
  let seen = sink.newVariable();
  sink.addClause([-literals[0]!, seen, ...guard]);
  for (let i = 1; i < n; i++) {
    sink.addClause([-literals[i]!, -seen, ...guard]);
    if (i === n - 1) break;
    const next = sink.newVariable();
    sink.addClause([-seen, next, ...guard]);
    sink.addClause([-literals[i]!, next, ...guard]);
    seen = next;
  }
}
