/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidates a mistyped `input` probably meant, closest first: within an edit distance of a
 * third of the input's length (at least 2), or sharing a prefix with it (`acme` → `acme-database`).
 */
export function closeMatches(input: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = input.toLowerCase();
  const allowed = Math.max(2, Math.floor(wanted.length / 3));
  const scored: Array<{ candidate: string; score: number }> = [];
  for (const candidate of new Set(candidates)) {
    const lower = candidate.toLowerCase();
    const distance = editDistance(wanted, lower);
    const isPrefix = wanted.length >= 3 && (lower.startsWith(wanted) || wanted.startsWith(lower));
    if (distance <= allowed || isPrefix) scored.push({ candidate, score: isPrefix ? Math.min(distance, allowed) : distance });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((entry) => entry.candidate);
}

/** `; did you mean a or b?`, or nothing when there is no close match. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const matches = closeMatches(input, candidates);
  if (matches.length === 0) return '';
  return `; did you mean ${matches.length === 1 ? matches[0] : `${matches.slice(0, -1).join(', ')} or ${matches.at(-1)}`}?`;
}
