import type { SatLiteral, SatSolver } from '@olm/core';

/** A small seeded PRNG (mulberry32): the same seed gives the same instances on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random k-SAT formula over variables 1..variables (distinct variables per clause, random signs). */
export function randomFormula(random: () => number, variables: number, clauses: number, width = 3): SatLiteral[][] {
  const formula: SatLiteral[][] = [];
  for (let c = 0; c < clauses; c++) {
    const picked = new Set<number>();
    while (picked.size < Math.min(width, variables)) picked.add(1 + Math.floor(random() * variables));
    formula.push([...picked].map((variable) => (random() < 0.5 ? -variable : variable)));
  }
  return formula;
}

/** Every assignment of variables 1..variables (bit v-1 = value of v) that satisfies the clauses, up to `limit`. */
export function bruteForceModels(variables: number, clauses: readonly (readonly SatLiteral[])[], limit = Infinity): number[] {
  if (variables > 20) throw new Error('brute force is for small problems');
  const masks = clauses.map((clause) => {
    let positive = 0;
    let negative = 0;
    for (const literal of clause) {
      if (literal > 0) positive |= 1 << (literal - 1);
      else negative |= 1 << (-literal - 1);
    }
    return [positive, negative] as const;
  });
  const models: number[] = [];
  const total = 1 << variables;
  outer: for (let assignment = 0; assignment < total; assignment++) {
    for (const [positive, negative] of masks) if ((assignment & positive) === 0 && (~assignment & negative) === 0) continue outer;
    models.push(assignment);
    if (models.length >= limit) break;
  }
  return models;
}

export function isSatisfiableByBruteForce(variables: number, clauses: readonly (readonly SatLiteral[])[]): boolean {
  return bruteForceModels(variables, clauses, 1).length > 0;
}

/** True when `value` satisfies every clause. */
export function satisfiesAll(clauses: readonly (readonly SatLiteral[])[], value: (variable: number) => boolean): boolean {
  return clauses.every((clause) => clause.some((literal) => value(Math.abs(literal)) === literal > 0));
}

/** Creates `count` variables on `solver`, returning their numbers. */
export function variablesOf(solver: SatSolver, count: number): number[] {
  return Array.from({ length: count }, () => solver.newVariable());
}

/** Pigeonhole: `pigeons` pigeons into `holes` holes, each pigeon somewhere, no two in one hole. */
export function pigeonhole(pigeons: number, holes: number): { variables: number; clauses: SatLiteral[][] } {
  const variable = (pigeon: number, hole: number) => pigeon * holes + hole + 1;
  const clauses: SatLiteral[][] = [];
  for (let pigeon = 0; pigeon < pigeons; pigeon++) clauses.push(Array.from({ length: holes }, (_, hole) => variable(pigeon, hole)));
  for (let hole = 0; hole < holes; hole++) {
    for (let a = 0; a < pigeons; a++) for (let b = a + 1; b < pigeons; b++) clauses.push([-variable(a, hole), -variable(b, hole)]);
  }
  return { variables: pigeons * holes, clauses };
}
