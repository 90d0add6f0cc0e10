import { describe, expect, it } from 'vitest';
import { encodeAtMostOne, pairwiseLimit } from './at-most-one.js';

function record(literals: number[], guard: number[] = []) {
  const clauses: number[][] = [];
  let next = 1000;
  encodeAtMostOne(literals, guard, { addClause: (clause) => void clauses.push([...clause]), newVariable: () => ++next });
  return { clauses, auxiliaries: next - 1000 };
}

describe('encodeAtMostOne', () => {
  it('adds nothing for zero or one literal', () => {
    expect(record([]).clauses).toEqual([]);
    expect(record([5]).clauses).toEqual([]);
  });

  it('is pairwise for small lists', () => {
    expect(record([1, -2, 3])).toEqual({ clauses: [[-1, 2], [-1, -3], [2, -3]], auxiliaries: 0 });
    expect(record(Array.from({ length: pairwiseLimit }, (_, i) => i + 1)).clauses).toHaveLength((pairwiseLimit * (pairwiseLimit - 1)) / 2);
  });

  it('is a linear sequential counter for large lists: 3n-4 clauses and n-1 auxiliaries', () => {
    const literals = Array.from({ length: 1000 }, (_, i) => i + 1);
    const { clauses, auxiliaries } = record(literals);
    expect(clauses).toHaveLength(3 * 1000 - 4);
    expect(auxiliaries).toBe(999);
    expect(Math.max(...clauses.map((clause) => clause.length))).toBe(2);
  });

  it('puts the guard (the negated condition) into every clause', () => {
    for (const size of [3, 12]) {
      const { clauses } = record(Array.from({ length: size }, (_, i) => i + 1), [-99]);
      expect(clauses.every((clause) => clause[clause.length - 1] === -99)).toBe(true);
    }
  });
});
